ALTER TABLE "member_snapshots" ADD COLUMN "first_declined_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD COLUMN "is_free_trial" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD COLUMN "is_gifted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD COLUMN "unreadable" jsonb;--> statement-breakpoint
-- A declined member keeps its grace anchor: the earliest of the last charge and the moment the decline was first seen (declined_seen_at, which this column supersedes).
UPDATE "member_snapshots" SET "first_declined_at" = LEAST("last_charge_date", "declined_seen_at") WHERE "patron_status" = 'declined_patron' OR "last_charge_status" = 'Declined';
