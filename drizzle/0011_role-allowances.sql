CREATE TABLE "role_allowances" (
	"guild_id" text NOT NULL,
	"role_id" text NOT NULL,
	"permissions" text NOT NULL,
	"allowed_by" text NOT NULL,
	"allowed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "role_allowances_guild_id_role_id_pk" PRIMARY KEY("guild_id","role_id")
);
