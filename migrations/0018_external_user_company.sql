-- An external user is (provider, company, user id) (SPEC.md 4.8). Rows made
-- before keep company_external_id NULL: no row says which company's host
-- first sent them, so each is bound by its first render after this
-- (access/external/users.ts, claimMapping), never guessed here.
DROP INDEX "external_users_key";--> statement-breakpoint
ALTER TABLE "external_users" ADD COLUMN "company_external_id" text;--> statement-breakpoint
ALTER TABLE "external_users" ADD CONSTRAINT "external_users_key" UNIQUE NULLS NOT DISTINCT("tenant_id","provider","external_id","company_external_id");
