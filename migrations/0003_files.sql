CREATE TABLE "artifact_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"artifact_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"content_type" text NOT NULL,
	"declared_size" integer,
	"size" integer,
	"sha256" text,
	"storage_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "artifact_versions_status" CHECK ("artifact_versions"."status" in ('pending', 'confirmed'))
);
--> statement-breakpoint
ALTER TABLE "artifact_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "artifacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"artifact_type" text NOT NULL,
	"filename" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "artifacts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "temp_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "temp_files" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "artifact_versions" ADD CONSTRAINT "artifact_versions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifact_versions" ADD CONSTRAINT "artifact_versions_artifact_id_artifacts_id_fk" FOREIGN KEY ("artifact_id") REFERENCES "public"."artifacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_entity_id_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entities"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "temp_files" ADD CONSTRAINT "temp_files_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "artifact_versions_number_key" ON "artifact_versions" USING btree ("tenant_id","artifact_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "artifact_versions_one_pending_key" ON "artifact_versions" USING btree ("tenant_id","artifact_id") WHERE "artifact_versions"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "artifact_versions_pending_idx" ON "artifact_versions" USING btree ("created_at") WHERE "artifact_versions"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "artifacts_entity_idx" ON "artifacts" USING btree ("tenant_id","entity_id","artifact_type","filename");--> statement-breakpoint
CREATE INDEX "temp_files_expires_idx" ON "temp_files" USING btree ("expires_at");--> statement-breakpoint
CREATE POLICY "artifact_versions_tenant_isolation" ON "artifact_versions" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "artifacts_tenant_isolation" ON "artifacts" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "temp_files_tenant_isolation" ON "temp_files" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
-- 0002's default privileges cover tables made by the role that ran it; granting
-- here as well keeps app_tenant's access when another role applies this migration.
GRANT SELECT, INSERT, UPDATE, DELETE ON "artifacts", "artifact_versions", "temp_files" TO app_tenant;
