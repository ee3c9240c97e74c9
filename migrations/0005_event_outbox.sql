CREATE TABLE "event_deliveries" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"delivered_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_deliveries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "event_outbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_outbox" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "events_undelivered_idx";--> statement-breakpoint
CREATE INDEX "event_outbox_created_idx" ON "event_outbox" USING btree ("created_at");--> statement-breakpoint
-- Carry delivery state over before the column goes: undelivered events wait in
-- the outbox (the cron tick re-queues them), delivered ones keep their time.
INSERT INTO "event_outbox" ("event_id", "tenant_id", "created_at")
  SELECT "id", "tenant_id", "created_at" FROM "events" WHERE "delivered_at" IS NULL AND NOT "suppressed";--> statement-breakpoint
INSERT INTO "event_deliveries" ("event_id", "tenant_id", "delivered_at")
  SELECT "id", "tenant_id", "delivered_at" FROM "events" WHERE "delivered_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "delivered_at";--> statement-breakpoint
CREATE POLICY "event_deliveries_tenant_isolation" ON "event_deliveries" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "event_outbox_tenant_isolation" ON "event_outbox" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
-- 0002's default privileges cover tables made by the role that ran it; granting
-- here as well keeps app_tenant's access when another role applies this migration.
GRANT SELECT, INSERT, UPDATE, DELETE ON "event_outbox", "event_deliveries" TO app_tenant;
