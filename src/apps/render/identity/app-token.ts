// A bearer provider's credential: the integration's app token
// (`svc_at_<64 hex>`), found by its SHA-256 among the live tokens of the
// integration the path names. A PAT, an access token, a revoked token or
// another integration's token proves nothing here.
import type { Database } from "../../../db/client";
import { sha256 } from "../../../lib/crypto";
import { refused } from "./refusal";
import { APP_TOKEN } from "../../tokens/token-format";

/** Passes when `raw` is the live app token of `integrationId`; 401 otherwise. */
export async function verifyAppToken(database: Database, integrationId: string, raw: string): Promise<void> {
  // The shape is checked before any lookup (docs/apps.md, App tokens).
  if (!APP_TOKEN.test(raw)) throw refused("not an app token");
  const hash = await sha256(raw);
  // The hash is unique across every tenant, so the lookup needs no tenant; the integration must be the path's.
  const { rows } = await database.system((sql) =>
    sql.query(`SELECT 1 FROM app_tokens WHERE token_hash = $1 AND integration_id = $2 AND revoked_at IS NULL`, [hash, integrationId]),
  );
  if (rows.length === 0) throw refused("unknown, revoked or another integration's app token");
}
