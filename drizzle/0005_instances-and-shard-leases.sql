CREATE TABLE "identify_slots" (
	"rate_limit_key" integer PRIMARY KEY NOT NULL,
	"identified_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopping" boolean DEFAULT false NOT NULL,
	"shards" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shard_leases" (
	"shard_id" integer PRIMARY KEY NOT NULL,
	"shard_count" integer NOT NULL,
	"holder" text NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
