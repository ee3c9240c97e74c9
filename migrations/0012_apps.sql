CREATE TABLE "app_activations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"spec_id" uuid NOT NULL,
	"spec_version" integer,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"job_bindings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"policy_id" uuid,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_activations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "app_integrations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"activation_id" uuid NOT NULL,
	"external_company_id" uuid NOT NULL,
	"name" text,
	"allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"job_bindings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_integrations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "app_spec_versions" (
	"tenant_id" uuid NOT NULL,
	"spec_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"spec_document" json NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_spec_versions_spec_id_version_pk" PRIMARY KEY("spec_id","version")
);
--> statement-breakpoint
ALTER TABLE "app_spec_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "app_specs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"version" integer DEFAULT 1 NOT NULL,
	"spec_document" json NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_specs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "app_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"integration_id" uuid NOT NULL,
	"token_hash" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "app_tokens" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "app_activations" ADD CONSTRAINT "app_activations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_activations" ADD CONSTRAINT "app_activations_spec_id_app_specs_id_fk" FOREIGN KEY ("spec_id") REFERENCES "public"."app_specs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_activations" ADD CONSTRAINT "app_activations_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_integrations" ADD CONSTRAINT "app_integrations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_integrations" ADD CONSTRAINT "app_integrations_activation_id_app_activations_id_fk" FOREIGN KEY ("activation_id") REFERENCES "public"."app_activations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_integrations" ADD CONSTRAINT "app_integrations_external_company_id_external_companies_id_fk" FOREIGN KEY ("external_company_id") REFERENCES "public"."external_companies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_spec_versions" ADD CONSTRAINT "app_spec_versions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_spec_versions" ADD CONSTRAINT "app_spec_versions_spec_id_app_specs_id_fk" FOREIGN KEY ("spec_id") REFERENCES "public"."app_specs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_specs" ADD CONSTRAINT "app_specs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_tokens" ADD CONSTRAINT "app_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_tokens" ADD CONSTRAINT "app_tokens_integration_id_app_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."app_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "app_activations_tenant_spec_key" ON "app_activations" USING btree ("tenant_id","spec_id");--> statement-breakpoint
CREATE INDEX "app_activations_spec_idx" ON "app_activations" USING btree ("spec_id");--> statement-breakpoint
CREATE INDEX "app_integrations_activation_idx" ON "app_integrations" USING btree ("tenant_id","activation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "app_specs_tenant_name_key" ON "app_specs" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "app_tokens_hash_key" ON "app_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "app_tokens_live_key" ON "app_tokens" USING btree ("integration_id") WHERE "app_tokens"."revoked_at" is null;--> statement-breakpoint
CREATE POLICY "app_activations_tenant_isolation" ON "app_activations" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_integrations_tenant_isolation" ON "app_integrations" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_spec_versions_visible" ON "app_spec_versions" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) or (tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from shares s where s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) and s.tenant_id = app_spec_versions.tenant_id and s.resource_type = 'spec' and s.resource_id = app_spec_versions.spec_id and 'read' = any (s.actions))));--> statement-breakpoint
CREATE POLICY "app_spec_versions_tenant_insert" ON "app_spec_versions" AS PERMISSIVE FOR INSERT TO "app_tenant" WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_spec_versions_tenant_update" ON "app_spec_versions" AS PERMISSIVE FOR UPDATE TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_spec_versions_tenant_delete" ON "app_spec_versions" AS PERMISSIVE FOR DELETE TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_specs_visible" ON "app_specs" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) or (tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from shares s where s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) and s.tenant_id = app_specs.tenant_id and s.resource_type = 'spec' and s.resource_id = app_specs.id and 'read' = any (s.actions))));--> statement-breakpoint
CREATE POLICY "app_specs_tenant_insert" ON "app_specs" AS PERMISSIVE FOR INSERT TO "app_tenant" WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_specs_tenant_update" ON "app_specs" AS PERMISSIVE FOR UPDATE TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_specs_tenant_delete" ON "app_specs" AS PERMISSIVE FOR DELETE TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "app_tokens_tenant_isolation" ON "app_tokens" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));