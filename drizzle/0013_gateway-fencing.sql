CREATE SEQUENCE "public"."shard_lease_generation" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "interaction_claims" (
	"id" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "connected_shards" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "shard_leases" ADD COLUMN "generation" bigint DEFAULT nextval('shard_lease_generation') NOT NULL;--> statement-breakpoint
CREATE INDEX "interaction_claims_at_idx" ON "interaction_claims" USING btree ("claimed_at");