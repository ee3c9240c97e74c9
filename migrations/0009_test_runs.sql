-- Test runs (POST /definition/workflows/{id}/test-runs): a run may have no trigger
-- (type `test`), acts as the caller's API token with an env of its own, and is
-- flagged `test`. `depth` bounds chains of invokeWorkflow runs; `retry_request`
-- carries what a retry asked for to the run's object.
ALTER TABLE "workflow_runs" DROP CONSTRAINT "workflow_runs_trigger_type";--> statement-breakpoint
ALTER TABLE "workflow_runs" ALTER COLUMN "trigger_key" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "test_env" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "caller_token_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "depth" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "retry_request" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_trigger_type" CHECK ("workflow_runs"."trigger_type" in ('event', 'cron', 'webhook', 'test'));