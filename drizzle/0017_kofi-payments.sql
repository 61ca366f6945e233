CREATE TABLE "kofi_donation_settings" (
	"guild_id" text PRIMARY KEY NOT NULL,
	"min_cents" integer NOT NULL,
	"days" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kofi_link_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"discord_user_id" text NOT NULL,
	"guild_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "kofi_payments" (
	"message_id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"paid_at" timestamp with time zone NOT NULL,
	"email" text,
	"from_name" text,
	"tier_name" text,
	"amount_cents" integer NOT NULL,
	"currency" text,
	"is_subscription_payment" boolean NOT NULL,
	"is_first_subscription_payment" boolean NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"transaction_id" text,
	"discord_user_id" text,
	"link_code_hash" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "kofi_link_codes_user_idx" ON "kofi_link_codes" USING btree ("discord_user_id");--> statement-breakpoint
CREATE INDEX "kofi_payments_email_idx" ON "kofi_payments" USING btree ("email","paid_at");--> statement-breakpoint
CREATE INDEX "kofi_payments_unprocessed_idx" ON "kofi_payments" USING btree ("processed_at");