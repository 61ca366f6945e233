ALTER TABLE "campaigns" ADD COLUMN "pay_per" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "pay_per_name" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "currency" text;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "locale" text;