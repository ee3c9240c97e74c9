ALTER TABLE "workflow_action_runs" ADD COLUMN "config" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ADD COLUMN "result" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ADD COLUMN "result_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ADD COLUMN "skipped_reason" text;--> statement-breakpoint
ALTER TABLE "workflow_job_runs" ADD COLUMN "input" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_job_runs" ADD COLUMN "skipped_reason" text;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "errors_continued" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_action_runs" ADD CONSTRAINT "workflow_action_runs_skipped_reason" CHECK ("workflow_action_runs"."skipped_reason" in ('if_false', 'run_ended'));--> statement-breakpoint
ALTER TABLE "workflow_job_runs" ADD CONSTRAINT "workflow_job_runs_skipped_reason" CHECK ("workflow_job_runs"."skipped_reason" in ('condition_false', 'run_ended'));