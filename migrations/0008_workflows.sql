CREATE TABLE "cron_schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"trigger_id" uuid NOT NULL,
	"cron" text NOT NULL,
	"offset_seconds" integer NOT NULL,
	"catch_up" boolean NOT NULL,
	"next_run_at" timestamp with time zone NOT NULL,
	"last_run_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cron_schedules_offset" CHECK ("cron_schedules"."offset_seconds" between 0 and 9)
);
--> statement-breakpoint
ALTER TABLE "cron_schedules" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "job_definitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"definition_json" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_definitions_status" CHECK ("job_definitions"."status" in ('active'))
);
--> statement-breakpoint
ALTER TABLE "job_definitions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_action_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "workflow_action_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"job_run_id" uuid NOT NULL,
	"step_id" text,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"error" jsonb,
	"at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_action_log" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_action_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"job_run_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"step_id" text,
	"name" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"detail" jsonb,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "workflow_action_runs_status" CHECK ("workflow_action_runs"."status" in ('pending', 'running', 'waiting', 'success', 'error', 'skipped', 'cancelled', 'timeout'))
);
--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_activations" (
	"workflow_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"env" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"job_bindings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"policy_id" uuid,
	"activated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_activations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_definitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"definition_json" jsonb NOT NULL,
	"source_yaml" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_definitions_status" CHECK ("workflow_definitions"."status" in ('draft', 'active'))
);
--> statement-breakpoint
ALTER TABLE "workflow_definitions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_job_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"job_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" jsonb,
	"output" jsonb,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_job_runs_status" CHECK ("workflow_job_runs"."status" in ('pending', 'running', 'waiting', 'success', 'error', 'skipped', 'cancelled', 'timeout'))
);
--> statement-breakpoint
ALTER TABLE "workflow_job_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"workflow_version" integer NOT NULL,
	"trigger_id" uuid,
	"trigger_key" text NOT NULL,
	"trigger_type" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"context" jsonb NOT NULL,
	"outputs" jsonb,
	"error" jsonb,
	"entity_id" uuid,
	"event_id" uuid,
	"idempotency_key" text,
	"parent_run_id" uuid,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_runs_status" CHECK ("workflow_runs"."status" in ('pending', 'running', 'success', 'error', 'cancelled', 'skipped', 'timeout')),
	CONSTRAINT "workflow_runs_trigger_type" CHECK ("workflow_runs"."trigger_type" in ('event', 'cron', 'webhook'))
);
--> statement-breakpoint
ALTER TABLE "workflow_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_triggers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"key" text NOT NULL,
	"type" text NOT NULL,
	"definition" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"entity_type_id" uuid,
	"event_action" text,
	"secret_ciphertext" "bytea",
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_triggers_type" CHECK ("workflow_triggers"."type" in ('event', 'cron', 'webhook')),
	CONSTRAINT "workflow_triggers_event_match" CHECK (("workflow_triggers"."type" = 'event') = ("workflow_triggers"."entity_type_id" is not null and "workflow_triggers"."event_action" is not null))
);
--> statement-breakpoint
ALTER TABLE "workflow_triggers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "workflow_versions" (
	"tenant_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"definition_json" jsonb NOT NULL,
	"job_refs" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_versions_workflow_id_version_pk" PRIMARY KEY("workflow_id","version")
);
--> statement-breakpoint
ALTER TABLE "workflow_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "cron_schedules" ADD CONSTRAINT "cron_schedules_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cron_schedules" ADD CONSTRAINT "cron_schedules_workflow_id_workflow_definitions_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflow_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cron_schedules" ADD CONSTRAINT "cron_schedules_trigger_id_workflow_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."workflow_triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_definitions" ADD CONSTRAINT "job_definitions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_action_log" ADD CONSTRAINT "workflow_action_log_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_action_log" ADD CONSTRAINT "workflow_action_log_job_run_id_workflow_job_runs_id_fk" FOREIGN KEY ("job_run_id") REFERENCES "public"."workflow_job_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ADD CONSTRAINT "workflow_action_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ADD CONSTRAINT "workflow_action_runs_job_run_id_workflow_job_runs_id_fk" FOREIGN KEY ("job_run_id") REFERENCES "public"."workflow_job_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_activations" ADD CONSTRAINT "workflow_activations_workflow_id_workflow_definitions_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflow_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_activations" ADD CONSTRAINT "workflow_activations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_activations" ADD CONSTRAINT "workflow_activations_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_definitions" ADD CONSTRAINT "workflow_definitions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_job_runs" ADD CONSTRAINT "workflow_job_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_job_runs" ADD CONSTRAINT "workflow_job_runs_run_id_workflow_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."workflow_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_workflow_id_workflow_definitions_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflow_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_trigger_id_workflow_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."workflow_triggers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_triggers" ADD CONSTRAINT "workflow_triggers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_triggers" ADD CONSTRAINT "workflow_triggers_workflow_id_workflow_definitions_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflow_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_workflow_id_workflow_definitions_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflow_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cron_schedules_trigger_key" ON "cron_schedules" USING btree ("trigger_id");--> statement-breakpoint
CREATE INDEX "cron_schedules_due_idx" ON "cron_schedules" USING btree ("next_run_at");--> statement-breakpoint
CREATE INDEX "cron_schedules_tenant_idx" ON "cron_schedules" USING btree ("tenant_id","workflow_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "job_definitions_name_version_key" ON "job_definitions" USING btree ("tenant_id","name","version");--> statement-breakpoint
CREATE INDEX "workflow_action_log_job_idx" ON "workflow_action_log" USING btree ("job_run_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_action_runs_key" ON "workflow_action_runs" USING btree ("job_run_id","position");--> statement-breakpoint
CREATE INDEX "workflow_activations_policy_idx" ON "workflow_activations" USING btree ("tenant_id","policy_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_definitions_tenant_name_key" ON "workflow_definitions" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_job_runs_key" ON "workflow_job_runs" USING btree ("run_id","job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_runs_event_key" ON "workflow_runs" USING btree ("trigger_id","event_id") WHERE "workflow_runs"."event_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_runs_idempotency_key" ON "workflow_runs" USING btree ("trigger_id","idempotency_key") WHERE "workflow_runs"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "workflow_runs_tenant_created_idx" ON "workflow_runs" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "workflow_runs_workflow_created_idx" ON "workflow_runs" USING btree ("tenant_id","workflow_id","created_at","id");--> statement-breakpoint
CREATE INDEX "workflow_runs_entity_idx" ON "workflow_runs" USING btree ("tenant_id","entity_id") WHERE "workflow_runs"."entity_id" is not null;--> statement-breakpoint
CREATE INDEX "workflow_runs_open_idx" ON "workflow_runs" USING btree ("status","not_before") WHERE "workflow_runs"."status" in ('pending', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_triggers_key" ON "workflow_triggers" USING btree ("workflow_id","key");--> statement-breakpoint
CREATE INDEX "workflow_triggers_event_idx" ON "workflow_triggers" USING btree ("tenant_id","entity_type_id","event_action") WHERE "workflow_triggers"."type" = 'event' and "workflow_triggers"."enabled";--> statement-breakpoint
CREATE POLICY "cron_schedules_tenant_isolation" ON "cron_schedules" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "job_definitions_tenant_isolation" ON "job_definitions" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_action_log_tenant_isolation" ON "workflow_action_log" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_action_runs_tenant_isolation" ON "workflow_action_runs" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_activations_tenant_isolation" ON "workflow_activations" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_definitions_tenant_isolation" ON "workflow_definitions" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_job_runs_tenant_isolation" ON "workflow_job_runs" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_runs_tenant_isolation" ON "workflow_runs" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_triggers_tenant_isolation" ON "workflow_triggers" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));--> statement-breakpoint
CREATE POLICY "workflow_versions_tenant_isolation" ON "workflow_versions" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));
--> statement-breakpoint
-- 0002's default privileges cover tables made by the role that ran it; granting
-- here as well keeps app_tenant's access when another role applies this migration.
GRANT SELECT, INSERT, UPDATE, DELETE ON "workflow_definitions", "workflow_versions", "job_definitions", "workflow_activations", "workflow_triggers", "cron_schedules", "workflow_runs", "workflow_job_runs", "workflow_action_runs", "workflow_action_log" TO app_tenant;
--> statement-breakpoint
GRANT USAGE ON SEQUENCE "workflow_action_log_id_seq" TO app_tenant;
