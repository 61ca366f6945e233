CREATE TABLE "comps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"guild_id" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"tier_id" text NOT NULL,
	"until" timestamp with time zone NOT NULL,
	"reason" text NOT NULL,
	"granted_by" text NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" text
);
--> statement-breakpoint
CREATE TABLE "rule_roles" (
	"guild_id" text NOT NULL,
	"kind" text NOT NULL,
	"threshold" integer NOT NULL,
	"role_id" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Every link, snapshot and grant of release 0.1.0 came from Patreon: the new source columns say so
-- (their default), and the columns that said how a link was made or which read wrote a snapshot,
-- both once named "source", keep their values under their new names.
ALTER TABLE "links" RENAME COLUMN "source" TO "method";--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "source" text DEFAULT 'patreon' NOT NULL;--> statement-breakpoint
ALTER TABLE "links" RENAME COLUMN "patreon_user_id" TO "external_id";--> statement-breakpoint
ALTER TABLE "links" DROP CONSTRAINT "links_pkey";--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_pkey" PRIMARY KEY("discord_user_id","source");--> statement-breakpoint
DROP INDEX "links_patreon_user_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "links_external_idx" ON "links" USING btree ("source","external_id");--> statement-breakpoint
ALTER TABLE "link_events" RENAME COLUMN "patreon_user_id" TO "external_id";--> statement-breakpoint
ALTER TABLE "link_events" ADD COLUMN "source" text DEFAULT 'patreon' NOT NULL;--> statement-breakpoint
ALTER TABLE "link_tokens" RENAME COLUMN "patreon_user_id" TO "external_id";--> statement-breakpoint
ALTER TABLE "member_snapshots" RENAME COLUMN "source" TO "read_by";--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD COLUMN "source" text DEFAULT 'patreon' NOT NULL;--> statement-breakpoint
ALTER TABLE "member_snapshots" RENAME COLUMN "patreon_user_id" TO "external_user_id";--> statement-breakpoint
ALTER TABLE "member_snapshots" DROP CONSTRAINT "member_snapshots_campaign_id_member_id_pk";--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD CONSTRAINT "member_snapshots_pkey" PRIMARY KEY("source","campaign_id","member_id");--> statement-breakpoint
DROP INDEX "member_snapshots_patreon_user_idx";--> statement-breakpoint
DROP INDEX "member_snapshots_user_idx";--> statement-breakpoint
CREATE INDEX "member_snapshots_external_user_idx" ON "member_snapshots" USING btree ("source","external_user_id");--> statement-breakpoint
CREATE INDEX "member_snapshots_user_idx" ON "member_snapshots" USING btree ("campaign_id","external_user_id");--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "source" text DEFAULT 'patreon' NOT NULL;--> statement-breakpoint
-- A grant of release 0.1.0 of a tier role was Patreon's; setting roles carry no source.
ALTER TABLE "role_grants" ADD COLUMN "sources" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
UPDATE "role_grants" SET "sources" = '{patreon}' WHERE "kind" = 'tier';--> statement-breakpoint
CREATE UNIQUE INDEX "comps_in_force_idx" ON "comps" USING btree ("guild_id","discord_user_id","campaign_id","tier_id") WHERE "comps"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "comps_user_idx" ON "comps" USING btree ("discord_user_id");--> statement-breakpoint
CREATE INDEX "comps_until_idx" ON "comps" USING btree ("until");--> statement-breakpoint
CREATE UNIQUE INDEX "rule_roles_role_idx" ON "rule_roles" USING btree ("guild_id","kind","role_id");
