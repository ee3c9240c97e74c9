-- app_tenant may read and write rows (row-level security decides which), never change the schema.
GRANT USAGE ON SCHEMA public TO app_tenant;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app_tenant;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO app_tenant;
--> statement-breakpoint
-- Casts used by indexed-attribute expressions: a value that does not parse is
-- NULL instead of an error, so a stray value never fails an insert or an index build.
CREATE OR REPLACE FUNCTION platform_numeric(v text) RETURNS numeric
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN pg_input_is_valid(v, 'numeric') THEN v::numeric END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION platform_timestamptz(v text) RETURNS timestamptz
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET timezone = 'UTC'
  AS $$ BEGIN RETURN v::timestamptz; EXCEPTION WHEN others THEN RETURN NULL; END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION platform_boolean(v text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN v IN ('true', 'false') THEN v::boolean END $$;
--> statement-breakpoint
-- unaccent() is only STABLE (its dictionary could change); indexes need an IMMUTABLE wrapper.
CREATE OR REPLACE FUNCTION platform_unaccent(v text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, v) $$;
--> statement-breakpoint
-- Creates a tenant with an admin user, an admin role holding every permission,
-- and one PAT bound to that role. Run by the owning role (scripts, tests), never by app_tenant.
CREATE OR REPLACE FUNCTION platform_create_tenant(p_name text, p_client_id text, p_secret_hash bytea)
  RETURNS TABLE (tenant_id uuid, user_id uuid, token_id uuid)
  LANGUAGE plpgsql
AS $$
DECLARE
  v_tenant uuid;
  v_user uuid;
  v_role uuid;
  v_token uuid;
BEGIN
  INSERT INTO tenants (name) VALUES (p_name) RETURNING id INTO v_tenant;
  INSERT INTO users (tenant_id, name) VALUES (v_tenant, 'admin') RETURNING id INTO v_user;
  INSERT INTO roles (tenant_id, name, permissions) VALUES (v_tenant, 'admin', ARRAY['*:*']) RETURNING id INTO v_role;
  INSERT INTO role_bindings (tenant_id, role_id, principal_type, principal_id) VALUES (v_tenant, v_role, 'user', v_user);
  INSERT INTO api_tokens (tenant_id, user_id, name, client_id, secret_hash)
    VALUES (v_tenant, v_user, 'bootstrap', p_client_id, p_secret_hash) RETURNING id INTO v_token;
  INSERT INTO role_bindings (tenant_id, role_id, principal_type, principal_id) VALUES (v_tenant, v_role, 'token', v_token);
  RETURN QUERY SELECT v_tenant, v_user, v_token;
END
$$;
