CREATE TABLE "pending_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"guild_id" text NOT NULL,
	"user_id" text NOT NULL,
	"change" jsonb NOT NULL,
	"fingerprint" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "link_messages" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "preview_threshold" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
CREATE INDEX "pending_changes_guild_idx" ON "pending_changes" USING btree ("guild_id","created_at");--> statement-breakpoint
CREATE INDEX "pending_changes_expiry_idx" ON "pending_changes" USING btree ("expires_at");