-- What a spec's owner must know about other tenants that row-level security
-- hides from it. SECURITY DEFINER: both read past the caller's policies, and
-- each answers only a count or an existence, never another tenant's rows.

-- How many other tenants have activated a spec of the calling tenant
-- (a spec of another tenant counts nothing): deleting the spec would take
-- their activations with it.
CREATE OR REPLACE FUNCTION platform_spec_foreign_activations(p_spec uuid) RETURNS integer
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ SELECT count(*)::integer FROM app_activations a JOIN app_specs s ON s.id = a.spec_id
         WHERE a.spec_id = p_spec
           AND s.tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)
           AND a.tenant_id <> s.tenant_id $$;
--> statement-breakpoint
-- Which of the given tenant ids exist: a spec's manifest names the tenants it
-- shares with, and a publish refuses one that does not exist.
CREATE OR REPLACE FUNCTION platform_existing_tenants(p_ids uuid[]) RETURNS uuid[]
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ SELECT coalesce(array_agg(id), '{}') FROM tenants WHERE id = any(p_ids) $$;
