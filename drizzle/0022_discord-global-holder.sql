CREATE TABLE "discord_global_holder" (
	"key" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"until" timestamp with time zone,
	"wanted_at" timestamp with time zone
);
