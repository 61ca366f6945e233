ALTER TABLE "member_snapshots" ADD COLUMN "read_hash" text;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "phase" text;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "members_read" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "progress_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "estimated_end_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "resumed_from" integer;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "attempt" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "sync_runs_running_idx" ON "sync_runs" USING btree ("status");