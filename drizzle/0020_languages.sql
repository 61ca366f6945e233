ALTER TABLE "guilds" ADD COLUMN "discord_locale" text;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "member_preferences" ADD COLUMN "locale" text;