CREATE TABLE "announcements" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"guild_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"channel_id" text NOT NULL,
	"message" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"posted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "channel_pacing" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"paced_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mod_log_state" (
	"guild_id" text PRIMARY KEY NOT NULL,
	"cursor_id" bigint NOT NULL,
	"batch_to_id" bigint,
	"batch_posted" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "post_polls" (
	"campaign_id" text PRIMARY KEY NOT NULL,
	"polled_at" timestamp with time zone NOT NULL,
	"last_error" text
);
--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "mod_log_channel_id" text;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "announce_patrons_channel_id" text;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "announce_patrons_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "announce_posts_channel_id" text;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "announce_posts_since" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "announcements_subject_idx" ON "announcements" USING btree ("guild_id","kind","subject");--> statement-breakpoint
CREATE INDEX "announcements_due_idx" ON "announcements" USING btree ("status","run_at");--> statement-breakpoint
CREATE INDEX "member_snapshots_pledge_start_idx" ON "member_snapshots" USING btree ("campaign_id","pledge_relationship_start");