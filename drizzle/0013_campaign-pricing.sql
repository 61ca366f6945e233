ALTER TABLE "campaigns" ADD COLUMN "pay_per" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "pay_per_name" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "currency" text;