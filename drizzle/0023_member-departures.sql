CREATE TABLE "guild_departures" (
	"guild_id" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"left_at" timestamp with time zone NOT NULL,
	"removed_at" timestamp with time zone,
	CONSTRAINT "guild_departures_guild_id_discord_user_id_pk" PRIMARY KEY("guild_id","discord_user_id")
);
--> statement-breakpoint
CREATE INDEX "guild_departures_left_idx" ON "guild_departures" USING btree ("guild_id","left_at");