-- Activations made before consent existed followed their pin or the latest: that is what they accepted.
ALTER TABLE "app_activations" ADD COLUMN "accepted_version" integer;--> statement-breakpoint
UPDATE "app_activations" a SET "accepted_version" = coalesce(a."spec_version", s."version") FROM "app_specs" s WHERE s."id" = a."spec_id";--> statement-breakpoint
ALTER TABLE "app_activations" ALTER COLUMN "accepted_version" SET NOT NULL;
