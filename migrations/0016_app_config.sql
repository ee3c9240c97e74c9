CREATE TABLE "app_principal_configs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"activation_id" uuid NOT NULL,
	"principal_type" text NOT NULL,
	"provider" text DEFAULT '' NOT NULL,
	"principal_id" text NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_principal_configs_type" CHECK ("app_principal_configs"."principal_type" in ('company', 'team', 'user'))
);
--> statement-breakpoint
ALTER TABLE "app_principal_configs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "app_activations" ADD COLUMN "policy_bound" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "app_activation_id" uuid;--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "app_policy_key" text;--> statement-breakpoint
ALTER TABLE "app_principal_configs" ADD CONSTRAINT "app_principal_configs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_principal_configs" ADD CONSTRAINT "app_principal_configs_activation_id_app_activations_id_fk" FOREIGN KEY ("activation_id") REFERENCES "public"."app_activations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "app_principal_configs_key" ON "app_principal_configs" USING btree ("tenant_id","activation_id","principal_type","provider","principal_id");--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_app_activation_id_app_activations_id_fk" FOREIGN KEY ("app_activation_id") REFERENCES "public"."app_activations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "policies_app_activation_key" ON "policies" USING btree ("tenant_id","app_activation_id","app_policy_key") WHERE "policies"."app_activation_id" IS NOT NULL;--> statement-breakpoint
CREATE POLICY "app_principal_configs_tenant_isolation" ON "app_principal_configs" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));