CREATE TABLE "patreon_budget" (
	"key" text PRIMARY KEY NOT NULL,
	"times" bigint[] NOT NULL
);
--> statement-breakpoint
ALTER TABLE "discord_budget" ADD COLUMN "seen_sent_at" timestamp with time zone;