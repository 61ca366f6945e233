ALTER TABLE "audit_log" ADD COLUMN "reason_code" jsonb;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "held_why" jsonb;--> statement-breakpoint
ALTER TABLE "role_grants" ADD COLUMN "reason_code" jsonb;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "held_why" jsonb;