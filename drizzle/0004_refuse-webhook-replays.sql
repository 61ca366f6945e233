CREATE TABLE "webhook_seen" (
	"body_hash" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD COLUMN "body_hash" text;--> statement-breakpoint
CREATE INDEX "webhook_seen_at_idx" ON "webhook_seen" USING btree ("seen_at");