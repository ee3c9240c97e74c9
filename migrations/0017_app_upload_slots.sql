CREATE TABLE "app_upload_slots" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"integration_id" uuid NOT NULL,
	"activation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"max_file_size" integer NOT NULL,
	"accept" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"identity" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"claimed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_upload_slots" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "app_upload_slots" ADD CONSTRAINT "app_upload_slots_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_upload_slots" ADD CONSTRAINT "app_upload_slots_integration_id_app_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."app_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_upload_slots" ADD CONSTRAINT "app_upload_slots_activation_id_app_activations_id_fk" FOREIGN KEY ("activation_id") REFERENCES "public"."app_activations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_upload_slots" ADD CONSTRAINT "app_upload_slots_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_upload_slots_expires_idx" ON "app_upload_slots" USING btree ("expires_at");--> statement-breakpoint
CREATE POLICY "app_upload_slots_tenant_isolation" ON "app_upload_slots" AS PERMISSIVE FOR ALL TO "app_tenant" USING (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)) WITH CHECK (tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid));