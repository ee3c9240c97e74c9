// Test helpers: every call goes through the Worker's own fetch (the whole gateway).
import { SELF, env } from "cloudflare:test";
import { Database } from "../../src/db/client";
import { sha256 } from "../../src/lib/crypto";
import { newPat } from "../../src/access/token-format";

export const BASE = "http://platform.test";

export interface TenantCreds {
  tenantId: string;
  userId: string;
  tokenId: string;
  clientId: string;
  clientSecret: string;
  auth: string;
}

export function basic(clientId: string, clientSecret: string): string {
  return `Basic ${btoa(`${clientId}:${clientSecret}`)}`;
}

/** The owning role's view of the database, for assertions that must see past row-level security. */
export async function withSystemDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export async function systemQuery<R extends Record<string, unknown> = Record<string, any>>(text: string, params: unknown[] = []): Promise<R[]> {
  return withSystemDb((db) => db.system(async (sql) => (await sql.query<R>(text, params)).rows));
}

/** Creates a tenant the way `npm run tenant:create` does (platform_create_tenant). */
export async function createTenant(name = `t-${crypto.randomUUID().slice(0, 8)}`): Promise<TenantCreds> {
  const pat = await newPat();
  const [row] = await systemQuery("SELECT * FROM platform_create_tenant($1, $2, $3)", [name, pat.clientId, pat.secretHash]);
  return {
    tenantId: row.tenant_id,
    userId: row.user_id,
    tokenId: row.token_id,
    clientId: pat.clientId,
    clientSecret: pat.clientSecret,
    auth: basic(pat.clientId, pat.clientSecret),
  };
}

export interface CallOptions {
  auth?: string | null;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

export async function call(method: string, path: string, opts: CallOptions = {}) {
  const headers = new Headers(opts.headers);
  if (opts.auth) headers.set("Authorization", opts.auth);
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(opts.body);
  }
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Asserts the error envelope (docs/api.md, Errors) and returns its error. */
export function expectError(res: { status: number; json: any }, status: number, code: string) {
  const err = res.json?.error;
  if (!err || res.status !== status || err.status !== status || err.code !== code || typeof err.message !== "string" || typeof err.details !== "object") {
    throw new Error(`expected ${status} ${code} envelope, got ${res.status} ${JSON.stringify(res.json)}`);
  }
  return err as { status: number; code: string; message: string; details: Record<string, any> };
}

export { sha256 };
