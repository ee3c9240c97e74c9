-- The guard of a cached caller (src/auth/caller-cache.ts, docs/architecture.md
-- "Who is calling, and what it costs"): an isolate keeps a verified
-- credential's principal for a minute, and every request that uses it sends
-- this call ahead of its first statement, in the same round trip. It answers
-- nothing when the principal still holds: the token is the tenant's, not
-- revoked, its user active, and the tenant's access version the one the
-- permissions were computed at. Otherwise it raises SQLSTATE PC401, which
-- fails the statement it rode with (and aborts its transaction), and the
-- gateway authenticates the request again without the cache.
--
-- Expiry is compared with `p_at`, the request's clock, as the uncached lookup
-- compares it (so a test's clock decides here too).
--
-- SECURITY DEFINER: app_tenant's policies do not reach api_tokens or users of
-- the tenant unless app.tenant_id is set, and the guard also rides with
-- statements of the owner path and system work.
CREATE OR REPLACE FUNCTION platform_assert_caller(p_token uuid, p_tenant uuid, p_version integer, p_at timestamptz) RETURNS void
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public
AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1
      FROM api_tokens t
      JOIN users u ON u.id = t.user_id
      LEFT JOIN access_versions v ON v.tenant_id = t.tenant_id
     WHERE t.id = p_token AND t.tenant_id = p_tenant AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > p_at)
       AND u.is_active AND coalesce(v.version, 0) = p_version
  ) THEN
    RAISE EXCEPTION 'the cached caller no longer holds' USING ERRCODE = 'PC401';
  END IF;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION platform_assert_caller(uuid, uuid, integer, timestamptz) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION platform_assert_caller(uuid, uuid, integer, timestamptz) TO app_tenant;
