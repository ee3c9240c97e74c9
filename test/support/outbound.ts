// The workerd side of the scriptable outbound server (outbound-server.ts):
// a scenario per test, its URLs, and what reached it.
import { env } from "cloudflare:test";

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  json?: unknown;
  delayMs?: number;
}

export interface SeenRequest {
  method: string;
  /** The path under the scenario, with its query. */
  path: string;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: string;
}

const bindings = () => env as unknown as { OUTBOUND_TEST_ORIGIN: string; OUTBOUND_TEST_OTHER_ORIGIN: string };
const origin = () => bindings().OUTBOUND_TEST_ORIGIN;

export interface Scenario {
  id: string;
  /** The absolute URL of `path` under this scenario; `other`: through the server's second origin. */
  url(path: string, other?: "other"): string;
  requests(): Promise<SeenRequest[]>;
}

/** Scripts responses by path (`{ "/token": [{ json: {...} }] }`): the n-th request gets the n-th, the last repeats. */
export async function scenario(routes: Record<string, ScriptedResponse[]>): Promise<Scenario> {
  const id = crypto.randomUUID();
  const res = await fetch(`${origin()}/__scenario/${id}`, { method: "PUT", body: JSON.stringify(routes) });
  if (!res.ok) throw new Error(`scripting the outbound server failed: ${res.status}`);
  return {
    id,
    url: (path, other) => `${other ? bindings().OUTBOUND_TEST_OTHER_ORIGIN : origin()}/s/${id}${path}`,
    requests: async () => (await (await fetch(`${origin()}/__requests/${id}`)).json()) as SeenRequest[],
  };
}

/** Makes `/dns-query` answer these names (lowercase, no trailing dot). */
export async function dnsRecords(records: Record<string, { A?: string[]; AAAA?: string[] }>): Promise<void> {
  const res = await fetch(`${origin()}/__dns`, { method: "PUT", body: JSON.stringify(records) });
  if (!res.ok) throw new Error(`scripting the outbound DNS failed: ${res.status}`);
}

export const outboundOrigin = origin;
