ALTER TABLE "link_tokens" ALTER COLUMN "discord_user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "vanity" text;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "join_slug" text;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "join_non_patrons" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "joiner_role_id" text;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD COLUMN "patreon_user_id" text;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD COLUMN "discord_state_nonce_hash" text;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD COLUMN "discord_state_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "guilds" ADD CONSTRAINT "guilds_join_slug_unique" UNIQUE("join_slug");