ALTER TABLE "guild_campaigns" ADD COLUMN "connected_by" text;--> statement-breakpoint
ALTER TABLE "guild_campaigns" ADD COLUMN "connector_role_id" text;