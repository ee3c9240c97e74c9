// Idempotency-Key: a repeat of a key by the same identity within 24 hours gets
// the first response verbatim; the same key with a different request is 422.
import type { Context, Next } from "hono";
import { ApiError } from "../lib/errors";
import { sha256Hex } from "../lib/crypto";
import type { HonoEnv } from "./env";

export const IDEMPOTENCY_WINDOW_HOURS = 24;
// A record still marked in progress after this long belongs to a request that
// died mid-way; the key may be used again.
const ABANDONED_AFTER_MINUTES = 5;

interface StoredRow {
  request_hash: string;
  status: number | null;
  body: string | null;
  content_type: string | null;
}

export async function idempotency(c: Context<HonoEnv>, next: Next): Promise<Response | void> {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined) return next();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ApiError("BAD_REQUEST", "Idempotency-Key must be 1 to 255 visible ASCII characters");
  }
  const principal = c.var.ctx.principal;
  const url = new URL(c.req.url);
  const requestHash = await sha256Hex(`${c.req.method} ${url.pathname}${url.search}\n${await c.req.text()}`);

  const claimed = await c.var.ctx.tenant.tx(async (sql) => {
    const { rows } = await sql.query(
      `INSERT INTO idempotency_records (tenant_id, identity, key, request_hash)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, identity, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, status = NULL, body = NULL, content_type = NULL, created_at = now()
         WHERE idempotency_records.created_at < now() - interval '${IDEMPOTENCY_WINDOW_HOURS} hours'
            OR (idempotency_records.status IS NULL AND idempotency_records.created_at < now() - interval '${ABANDONED_AFTER_MINUTES} minutes')
       RETURNING 1`,
      [principal.tenantId, principal.identity, key, requestHash],
    );
    if (rows.length) return null;
    const existing = await sql.query<StoredRow & Record<string, unknown>>(
      "SELECT request_hash, status, body, content_type FROM idempotency_records WHERE identity = $1 AND key = $2",
      [principal.identity, key],
    );
    return existing.rows[0];
  });

  if (claimed) {
    if (claimed.request_hash !== requestHash) {
      throw new ApiError({ code: "IDEMPOTENCY_KEY_REUSED" }, "Idempotency-Key was already used with a different request");
    }
    if (claimed.status === null) {
      throw new ApiError({ code: "IDEMPOTENCY_IN_PROGRESS" }, "A request with this Idempotency-Key is still in progress");
    }
    const headers = new Headers({ "Idempotent-Replayed": "true" });
    if (claimed.content_type) headers.set("Content-Type", claimed.content_type);
    return new Response(claimed.body, { status: claimed.status, headers });
  }

  let completed = false;
  try {
    await next();
    // Server errors are not answers worth replaying: free the key for a retry.
    if (c.res.status < 500 && !c.error) {
      const body = await c.res.clone().text();
      await c.var.ctx.tenant.tx((sql) =>
        sql.query("UPDATE idempotency_records SET status = $3, body = $4, content_type = $5 WHERE identity = $1 AND key = $2", [
          principal.identity,
          key,
          c.res.status,
          body,
          c.res.headers.get("Content-Type"),
        ]),
      );
      completed = true;
    }
  } finally {
    if (!completed) {
      await c.var.ctx.tenant
        .tx((sql) => sql.query("DELETE FROM idempotency_records WHERE identity = $1 AND key = $2 AND status IS NULL", [principal.identity, key]))
        .catch(() => {});
    }
  }
}
