CREATE TABLE "app_state" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"guild_id" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"role_id" text NOT NULL,
	"action" text NOT NULL,
	"outcome" text NOT NULL,
	"trigger" text NOT NULL,
	"reason" text NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" text PRIMARY KEY NOT NULL,
	"creator_user_id" text NOT NULL,
	"name" text NOT NULL,
	"url" text,
	"patron_count" integer,
	"tiers_refreshed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "creator_credentials" (
	"creator_user_id" text PRIMARY KEY NOT NULL,
	"access_token_enc" text NOT NULL,
	"refresh_token_enc" text NOT NULL,
	"expires_at" timestamp with time zone,
	"scopes" text DEFAULT '' NOT NULL,
	"refresh_failed_at" timestamp with time zone,
	"refresh_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guild_campaigns" (
	"guild_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"bound_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "guild_campaigns_guild_id_campaign_id_pk" PRIMARY KEY("guild_id","campaign_id")
);
--> statement-breakpoint
CREATE TABLE "guilds" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"grace_days" integer DEFAULT 7 NOT NULL,
	"mode" text DEFAULT 'stack' NOT NULL,
	"former_patron_role_id" text,
	"follower_role_id" text,
	"strict" boolean DEFAULT false NOT NULL,
	"removal_threshold_percent" integer DEFAULT 10 NOT NULL,
	"removal_threshold_min" integer DEFAULT 25 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "link_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"discord_user_id" text NOT NULL,
	"patreon_user_id" text NOT NULL,
	"kind" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "link_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"guild_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"state_nonce_hash" text,
	"state_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "links" (
	"discord_user_id" text PRIMARY KEY NOT NULL,
	"patreon_user_id" text NOT NULL,
	"source" text NOT NULL,
	"linked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_snapshots" (
	"campaign_id" text NOT NULL,
	"member_id" text NOT NULL,
	"patreon_user_id" text,
	"patron_status" text,
	"is_follower" boolean DEFAULT false NOT NULL,
	"last_charge_date" timestamp with time zone,
	"last_charge_status" text,
	"entitled_tier_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"last_active_tier_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"declined_seen_at" timestamp with time zone,
	"pledge_relationship_start" timestamp with time zone,
	"entitled_amount_cents" integer,
	"source" text NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_snapshots_campaign_id_member_id_pk" PRIMARY KEY("campaign_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "role_grants" (
	"guild_id" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"role_id" text NOT NULL,
	"campaign_id" text,
	"tier_id" text,
	"kind" text NOT NULL,
	"reason" text NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "role_grants_guild_id_discord_user_id_role_id_pk" PRIMARY KEY("guild_id","discord_user_id","role_id")
);
--> statement-breakpoint
CREATE TABLE "role_mappings" (
	"guild_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"tier_id" text NOT NULL,
	"role_id" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "role_mappings_guild_id_campaign_id_tier_id_role_id_pk" PRIMARY KEY("guild_id","campaign_id","tier_id","role_id")
);
--> statement-breakpoint
CREATE TABLE "sync_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"trigger" text NOT NULL,
	"guild_id" text,
	"campaign_id" text,
	"dry_run" boolean DEFAULT false NOT NULL,
	"forced" boolean DEFAULT false NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"pages_read" integer DEFAULT 0 NOT NULL,
	"members_seen" integer DEFAULT 0 NOT NULL,
	"links" integer DEFAULT 0 NOT NULL,
	"planned_adds" integer DEFAULT 0 NOT NULL,
	"planned_removes" integer DEFAULT 0 NOT NULL,
	"applied_adds" integer DEFAULT 0 NOT NULL,
	"applied_removes" integer DEFAULT 0 NOT NULL,
	"held_removals" integer DEFAULT 0 NOT NULL,
	"failed_changes" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"api_calls" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"held_reason" text
);
--> statement-breakpoint
CREATE TABLE "tiers" (
	"campaign_id" text NOT NULL,
	"id" text NOT NULL,
	"title" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"patron_count" integer,
	"published" boolean DEFAULT true NOT NULL,
	"role_ids" jsonb NOT NULL,
	"removed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tiers_campaign_id_id_pk" PRIMARY KEY("campaign_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_inbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"trigger" text,
	"campaign_id" text,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"uri" text NOT NULL,
	"triggers" jsonb NOT NULL,
	"secret_enc" text NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"num_consecutive_times_failed" integer DEFAULT 0 NOT NULL,
	"last_attempted_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_log_user_idx" ON "audit_log" USING btree ("guild_id","discord_user_id","at");--> statement-breakpoint
CREATE INDEX "guild_campaigns_campaign_idx" ON "guild_campaigns" USING btree ("campaign_id");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("status","run_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_pending_dedupe_idx" ON "jobs" USING btree ("dedupe_key") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "link_events_user_idx" ON "link_events" USING btree ("discord_user_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "links_patreon_user_idx" ON "links" USING btree ("patreon_user_id");--> statement-breakpoint
CREATE INDEX "member_snapshots_user_idx" ON "member_snapshots" USING btree ("campaign_id","patreon_user_id");--> statement-breakpoint
CREATE INDEX "member_snapshots_patreon_user_idx" ON "member_snapshots" USING btree ("patreon_user_id");--> statement-breakpoint
CREATE INDEX "sync_runs_guild_idx" ON "sync_runs" USING btree ("guild_id","started_at");--> statement-breakpoint
CREATE INDEX "webhook_inbox_due_idx" ON "webhook_inbox" USING btree ("status","run_at");