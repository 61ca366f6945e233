CREATE TABLE "dashboard_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"discord_user_id" text NOT NULL,
	"user_name" text NOT NULL,
	"guild_ids" jsonb NOT NULL,
	"flash" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD COLUMN "full_name" text;--> statement-breakpoint
CREATE INDEX "dashboard_sessions_user_idx" ON "dashboard_sessions" USING btree ("discord_user_id");--> statement-breakpoint
CREATE INDEX "dashboard_sessions_expires_idx" ON "dashboard_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "audit_log_guild_at_idx" ON "audit_log" USING btree ("guild_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_role_idx" ON "audit_log" USING btree ("guild_id","role_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_outcome_idx" ON "audit_log" USING btree ("guild_id","outcome","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_trigger_idx" ON "audit_log" USING btree ("guild_id","trigger","at","id");