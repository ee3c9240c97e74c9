// Host names to addresses through the operator's DNS-over-HTTPS JSON resolver
// (the format cloudflare-dns.com and dns.google answer). Workers have no
// resolver API, and the guard must see every address a name has before
// anything is sent to it. Nothing is cached: a second lookup could answer
// differently (DNS rebinding), so each request resolves afresh.
import { parseAddress, type Address } from "./address";
import { OutboundError, type OutboundEnv } from "./types";

/** The resolver is ours; a slow one must not hold an action for its whole timeout. */
export const DNS_TIMEOUT_MS = 5_000;

const RECORD = { A: { type: 1, family: 4 }, AAAA: { type: 28, family: 6 } } as const;

interface DnsJson {
  Status?: number;
  Answer?: { type?: number; data?: string }[];
}

/** Every A and AAAA address of `name`; empty when the name does not exist or has none. */
export async function resolveHost(name: string, env: OutboundEnv, signal?: AbortSignal): Promise<Address[]> {
  const deadline = AbortSignal.timeout(DNS_TIMEOUT_MS);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const [a, aaaa] = await Promise.all([query(name, "A", env, combined), query(name, "AAAA", env, combined)]);
  return [...a, ...aaaa];
}

async function query(name: string, type: keyof typeof RECORD, env: OutboundEnv, signal: AbortSignal): Promise<Address[]> {
  const url = `${env.OUTBOUND_DNS_URL}?name=${encodeURIComponent(name)}&type=${type}`;
  let answer: DnsJson;
  try {
    const res = await fetch(url, { headers: { accept: "application/dns-json" }, signal });
    if (!res.ok) throw new Error(`status ${res.status}`);
    answer = (await res.json()) as DnsJson;
  } catch (e) {
    // The caller's own deadline is the caller's to report (as a timeout).
    if (signal.aborted && signal.reason instanceof OutboundError) throw signal.reason;
    throw new OutboundError("unresolved", `the resolver gave no ${type} answer for ${name} (${e instanceof Error ? e.message : String(e)})`);
  }
  // 3 is NXDOMAIN: the name does not exist, which is "no address", not a resolver failure.
  if (answer.Status === 3) return [];
  if (answer.Status !== 0) throw new OutboundError("unresolved", `the resolver failed the ${type} lookup of ${name} (DNS status ${answer.Status})`);
  const out: Address[] = [];
  // CNAME (5) and any other record on the way to the addresses are skipped.
  for (const record of answer.Answer ?? []) {
    if (record.type !== RECORD[type].type) continue;
    const address = parseAddress(record.data ?? "");
    if (address?.family !== RECORD[type].family) throw new OutboundError("unresolved", `the resolver answered an unreadable ${type} record for ${name}`);
    out.push(address);
  }
  return out;
}
