CREATE TABLE "access_versions" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "external_companies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text,
	"metadata" jsonb,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "external_companies" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "external_users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"external_id" text NOT NULL,
	"email" text,
	"user_id" uuid NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "external_users" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"policy_id" uuid NOT NULL,
	"resource" text NOT NULL,
	"actions" text[] NOT NULL,
	"resource_name" text,
	"resource_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "grants" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "policies" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "policy_assignments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"policy_id" uuid NOT NULL,
	"role_id" uuid,
	"user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "policy_assignments_key" UNIQUE NULLS NOT DISTINCT("tenant_id","policy_id","role_id","user_id"),
	CONSTRAINT "policy_assignments_one_principal" CHECK (num_nonnulls("policy_assignments"."role_id", "policy_assignments"."user_id") = 1)
);
--> statement-breakpoint
ALTER TABLE "policy_assignments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "secrets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"principal_id" text,
	"name" text NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "secrets_key" UNIQUE NULLS NOT DISTINCT("tenant_id","scope","principal_id","name"),
	CONSTRAINT "secrets_scope" CHECK ("secrets"."scope" in ('tenant', 'user', 'company', 'team')),
	CONSTRAINT "secrets_principal" CHECK (("secrets"."scope" = 'tenant') = ("secrets"."principal_id" is null))
);
--> statement-breakpoint
ALTER TABLE "secrets" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "shares" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" uuid NOT NULL,
	"target_tenant_id" uuid NOT NULL,
	"actions" text[] NOT NULL,
	"source" text DEFAULT 'api' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shares_resource_type" CHECK ("shares"."resource_type" in ('entity_type', 'entity', 'spec', 'workflow', 'schema')),
	CONSTRAINT "shares_source" CHECK ("shares"."source" in ('api', 'manifest')),
	CONSTRAINT "shares_other_tenant" CHECK ("shares"."target_tenant_id" <> "shares"."tenant_id")
);
--> statement-breakpoint
ALTER TABLE "shares" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "inherits_user_roles" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "roles" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "is_active" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "access_versions" ADD CONSTRAINT "access_versions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_companies" ADD CONSTRAINT "external_companies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_users" ADD CONSTRAINT "external_users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_users" ADD CONSTRAINT "external_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_assignments" ADD CONSTRAINT "policy_assignments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_assignments" ADD CONSTRAINT "policy_assignments_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_assignments" ADD CONSTRAINT "policy_assignments_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_assignments" ADD CONSTRAINT "policy_assignments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secrets" ADD CONSTRAINT "secrets_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_target_tenant_id_tenants_id_fk" FOREIGN KEY ("target_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "external_companies_key" ON "external_companies" USING btree ("tenant_id","provider","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "external_users_key" ON "external_users" USING btree ("tenant_id","provider","external_id");--> statement-breakpoint
CREATE INDEX "external_users_user_idx" ON "external_users" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE INDEX "grants_policy_idx" ON "grants" USING btree ("tenant_id","policy_id");--> statement-breakpoint
CREATE UNIQUE INDEX "policies_tenant_name_key" ON "policies" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "shares_key" ON "shares" USING btree ("tenant_id","resource_type","resource_id","target_tenant_id","source");--> statement-breakpoint
CREATE INDEX "shares_target_idx" ON "shares" USING btree ("target_tenant_id","resource_type","resource_id");--> statement-breakpoint
-- Share clauses of the row-level-security policies below. They run as the
-- caller (app_tenant), so the shares they read are confined by shares'
-- own policies: the rows the current tenant owns or receives.
--
-- Shared rows are visible only in a transaction that asks for them
-- (`app.read_shared` = 'on', set by TenantDb.sharedRead, which is READ ONLY):
-- every other statement, writes and their look-ups included, sees the
-- tenant's own rows alone, so no write path can pick up another tenant's row.
CREATE OR REPLACE FUNCTION platform_visible_tenants() RETURNS uuid[]
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN current_setting('app.read_shared', true) = 'on'
                    THEN (SELECT array_agg(DISTINCT v) FROM (SELECT (select nullif(current_setting('app.tenant_id', true), '')::uuid) AS v UNION SELECT tenant_id FROM shares WHERE target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) x WHERE v IS NOT NULL)
                    ELSE ARRAY[(select nullif(current_setting('app.tenant_id', true), '')::uuid)] END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION platform_entity_shared(p_owner uuid, p_type uuid, p_id uuid) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT EXISTS (SELECT 1 FROM shares s
                        WHERE s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) AND s.tenant_id = p_owner AND 'read' = ANY (s.actions)
                          AND ((s.resource_type = 'entity_type' AND s.resource_id = p_type) OR (s.resource_type = 'entity' AND s.resource_id = p_id))) $$;
--> statement-breakpoint
-- A type is visible to a tenant that receives it, or receives one of its entities.
CREATE OR REPLACE FUNCTION platform_type_shared(p_owner uuid, p_type uuid) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT EXISTS (SELECT 1 FROM shares s
                        WHERE s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) AND s.tenant_id = p_owner AND 'read' = ANY (s.actions)
                          AND ((s.resource_type = 'entity_type' AND s.resource_id = p_type)
                            OR (s.resource_type = 'entity' AND EXISTS (SELECT 1 FROM entities e WHERE e.id = s.resource_id AND e.type_id = p_type AND e.deleted_at IS NULL)))) $$;
--> statement-breakpoint
DROP POLICY "entities_tenant_isolation" ON "entities" CASCADE;--> statement-breakpoint
CREATE POLICY "entities_visible" ON "entities" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (tenant_id = any((select platform_visible_tenants())::uuid[]) and (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) or platform_entity_shared(tenant_id, type_id, id)));--> statement-breakpoint
CREATE POLICY "entities_tenant_insert" ON "entities" AS PERMISSIVE FOR INSERT TO "app_tenant" WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "entities_tenant_update" ON "entities" AS PERMISSIVE FOR UPDATE TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "entities_tenant_delete" ON "entities" AS PERMISSIVE FOR DELETE TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "entity_types_shared_read" ON "entity_types" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (tenant_id = any((select platform_visible_tenants())::uuid[]) and platform_type_shared(tenant_id, id));--> statement-breakpoint
CREATE POLICY "relationship_rules_shared_read" ON "relationship_rules" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (tenant_id = any((select platform_visible_tenants())::uuid[]) and platform_type_shared(tenant_id, from_type_id) and platform_type_shared(tenant_id, to_type_id));--> statement-breakpoint
CREATE POLICY "relationships_shared_read" ON "relationships" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from entities f where f.id = from_entity_id) and exists (select 1 from entities t where t.id = to_entity_id));--> statement-breakpoint
CREATE POLICY "access_versions_tenant_isolation" ON "access_versions" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "external_companies_tenant_isolation" ON "external_companies" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "external_users_tenant_isolation" ON "external_users" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "grants_tenant_isolation" ON "grants" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "policies_tenant_isolation" ON "policies" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "policy_assignments_tenant_isolation" ON "policy_assignments" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "secrets_tenant_isolation" ON "secrets" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "shares_tenant_isolation" ON "shares" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "shares_target_read" ON "shares" AS PERMISSIVE FOR SELECT TO "app_tenant" USING (target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
-- The access version (schema.ts accessVersions): every change to a tenant's
-- access rows bumps it. SECURITY DEFINER because a share bumps the version
-- of its target tenant, whose row the caller's policies do not reach.
CREATE OR REPLACE FUNCTION platform_bump_access_version() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public
AS $$
DECLARE
  -- The column naming the tenant whose access changed is the trigger's argument.
  v_tenant uuid := (to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) ->> TG_ARGV[0])::uuid;
BEGIN
  INSERT INTO access_versions (tenant_id, version) VALUES (v_tenant, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET version = access_versions.version + 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER users_access_version AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
CREATE TRIGGER roles_access_version AFTER INSERT OR UPDATE OR DELETE ON roles FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
CREATE TRIGGER role_bindings_access_version AFTER INSERT OR UPDATE OR DELETE ON role_bindings FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
CREATE TRIGGER policies_access_version AFTER INSERT OR UPDATE OR DELETE ON policies FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
CREATE TRIGGER grants_access_version AFTER INSERT OR UPDATE OR DELETE ON grants FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
CREATE TRIGGER policy_assignments_access_version AFTER INSERT OR UPDATE OR DELETE ON policy_assignments FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
-- An own type shadows a shared one of the same name: creating or renaming a type changes what a name reads.
CREATE TRIGGER entity_types_access_version AFTER INSERT OR DELETE OR UPDATE OF name ON entity_types FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('tenant_id');
--> statement-breakpoint
CREATE TRIGGER shares_access_version AFTER INSERT OR UPDATE OR DELETE ON shares FOR EACH ROW EXECUTE FUNCTION platform_bump_access_version('target_tenant_id');
--> statement-breakpoint
INSERT INTO access_versions (tenant_id, version) SELECT id, 1 FROM tenants ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- 0002's default privileges cover tables made by the role that ran it; granting
-- here as well keeps app_tenant's access when another role applies this migration.
GRANT SELECT, INSERT, UPDATE, DELETE ON "access_versions", "policies", "grants", "policy_assignments", "shares", "secrets", "external_companies", "external_users" TO app_tenant;
