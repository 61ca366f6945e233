CREATE TABLE "guild_presence" (
	"guild_id" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"display_name" text,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"listing" text,
	CONSTRAINT "guild_presence_guild_id_discord_user_id_pk" PRIMARY KEY("guild_id","discord_user_id")
);
--> statement-breakpoint
CREATE TABLE "member_list_rows" (
	"guild_id" text NOT NULL,
	"row_key" text NOT NULL,
	"source" text NOT NULL,
	"campaign_id" text,
	"member_id" text,
	"discord_user_id" text,
	"display_name" text,
	"patron_name" text,
	"base" text NOT NULL,
	"declined_at" timestamp with time zone,
	"tier_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"in_server" boolean NOT NULL,
	"comped" boolean NOT NULL,
	"since" timestamp with time zone,
	"amount_cents" integer,
	"sort_name" text NOT NULL,
	CONSTRAINT "member_list_rows_guild_id_row_key_pk" PRIMARY KEY("guild_id","row_key")
);
--> statement-breakpoint
CREATE TABLE "member_list_state" (
	"guild_id" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"built_at" timestamp with time zone NOT NULL,
	"counts" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_preferences" (
	"discord_user_id" text PRIMARY KEY NOT NULL,
	"named_in_announcements" boolean DEFAULT true NOT NULL,
	"direct_messages" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "welcome_names" text DEFAULT 'mention' NOT NULL;--> statement-breakpoint
ALTER TABLE "guilds" ADD COLUMN "patron_messages" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "member_snapshots" ADD COLUMN "hides_pledges" boolean;--> statement-breakpoint
CREATE INDEX "guild_presence_seen_idx" ON "guild_presence" USING btree ("guild_id","seen_at");--> statement-breakpoint
CREATE INDEX "member_list_rows_name_idx" ON "member_list_rows" USING btree ("guild_id","sort_name","row_key");--> statement-breakpoint
CREATE INDEX "member_list_rows_since_idx" ON "member_list_rows" USING btree ("guild_id","since","row_key");--> statement-breakpoint
CREATE INDEX "member_list_rows_amount_idx" ON "member_list_rows" USING btree ("guild_id","amount_cents","row_key");--> statement-breakpoint
CREATE INDEX "member_list_rows_declined_idx" ON "member_list_rows" USING btree ("guild_id","declined_at") WHERE "member_list_rows"."base" = 'declined';--> statement-breakpoint
CREATE INDEX "member_snapshots_fetched_idx" ON "member_snapshots" USING btree ("campaign_id","fetched_at");