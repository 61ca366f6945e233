ALTER TABLE "link_tokens" ADD COLUMN "code_verifier" text;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD COLUMN "choice_used_at" timestamp with time zone;