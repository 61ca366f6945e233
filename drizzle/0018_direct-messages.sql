CREATE TABLE "direct_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"guild_id" text NOT NULL,
	"discord_user_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"status" text DEFAULT 'sending' NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "direct_messages_subject_idx" ON "direct_messages" USING btree ("guild_id","discord_user_id","kind","subject");