-- The typed readers of indexed attributes as plpgsql. As SQL functions they
-- were inlined into queries, and the planner could then evaluate the cast in
-- the THEN branch on its own (constant folding does not respect the CASE
-- guard), failing with "invalid input syntax" on a stored value that does not
-- convert. A plpgsql body is never inlined, so the guard always runs first.
-- Same signatures and results: the indexes built on them stay valid.
CREATE OR REPLACE FUNCTION platform_numeric(v text) RETURNS numeric
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ BEGIN IF pg_input_is_valid(v, 'numeric') THEN RETURN v::numeric; END IF; RETURN NULL; END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION platform_boolean(v text) RETURNS boolean
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ BEGIN IF v IN ('true', 'false') THEN RETURN v::boolean; END IF; RETURN NULL; END $$;
