// A bearer provider's credential: the integration's app token
// (`svc_at_<64 hex>`), found by its SHA-256 among the live tokens of the
// integration the path names. A PAT, an access token, a revoked token or
// another integration's token proves nothing here.
import type { Sql } from "../../../db/client";
import { sha256Hex } from "../../../lib/crypto";
import { refused } from "./refusal";
import { APP_TOKEN } from "../../tokens/token-format";

/** The hex SHA-256 `raw` is stored by; 401 for anything not shaped as an app token, checked before any lookup (docs/apps.md, App tokens). */
export async function appTokenHash(raw: string): Promise<string> {
  if (!APP_TOKEN.test(raw)) throw refused("not an app token");
  return sha256Hex(raw);
}

/**
 * SQL: whether the token of hash `$<hash>` (hex) is a live token of the
 * integration `$<integration>`. The hash is unique across every tenant, so
 * the lookup needs no tenant; the integration must be the path's.
 */
export const appTokenLive = (hash: string, integration: string) =>
  `EXISTS (SELECT 1 FROM app_tokens WHERE token_hash = decode(${hash}, 'hex') AND integration_id = ${integration} AND revoked_at IS NULL)`;

/** Passes when the token of hash `hash` is a live app token of `integrationId`; 401 otherwise. */
export async function verifyAppToken(lookups: Sql, integrationId: string, hash: string): Promise<void> {
  const { rows } = await lookups.query<{ live: boolean }>(`SELECT ${appTokenLive("$1", "$2::uuid")} AS live`, [hash, integrationId]);
  if (!rows[0]?.live) throw refused("unknown, revoked or another integration's app token");
}
