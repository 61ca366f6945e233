CREATE TABLE "discord_budget" (
	"key" text PRIMARY KEY NOT NULL,
	"limit_count" integer NOT NULL,
	"window_ms" integer NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"used" integer NOT NULL,
	"learned" boolean NOT NULL,
	"version" integer DEFAULT 1 NOT NULL
);
