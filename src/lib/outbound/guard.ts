// The SSRF guard: a URL may be fetched only when it is http(s), carries no
// credentials, and every address its host is or resolves to is public.
// The WHATWG URL parser normalises the host first, so every spelling of an
// address it accepts (decimal, octal, hex, short IPv4, trailing dot,
// percent-encoding, IPv6 with an embedded quad) is checked as the address it is.
// No name is refused by its spelling: `localhost` too is resolved and judged
// by its addresses.
import { formatAddress, parseAddress, refusalOf, sameAddress, type Address } from "./address";
import { resolveHost } from "./resolve";
import { OutboundError, type OutboundEnv } from "./types";

const refused = (reason: string) => new OutboundError("refused", reason);

/** The URL, parsed, when it may be fetched; throws `refused` or `unresolved` otherwise. */
export async function checkUrl(raw: string, env: OutboundEnv, signal?: AbortSignal): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused("the URL is not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refused(`the scheme ${url.protocol} is not allowed: only http and https`);
  // Credentials in the URL would travel to whoever the host is; profiles carry them instead.
  if (url.username !== "" || url.password !== "") throw refused("the URL carries userinfo (user:pass@); use an auth profile instead");
  const host = url.hostname;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const literal = parseAddress(host);
  const addresses = literal ? [literal] : await resolveHost(host, env, signal);
  if (addresses.length === 0) throw new OutboundError("unresolved", `${host} has no A or AAAA address`);
  const allowed = allowlist(env);
  for (const address of addresses) {
    if (allowed.some((entry) => entry.port === port && sameAddress(entry.address, address))) continue;
    const why = refusalOf(address);
    if (why) throw refused(literal ? `${formatAddress(address)} is ${why}` : `${host} resolves to ${formatAddress(address)}, ${why}`);
  }
  return url;
}

/**
 * Whether the URL names an `address:port` of `OUTBOUND_ALLOWLIST` literally
 * (tests only: production leaves the list empty), for the callers that
 * demand https of the world and must reach the tests' plain-http server.
 */
export function isAllowlisted(url: URL, env: OutboundEnv): boolean {
  const address = parseAddress(url.hostname);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  return !!address && allowlist(env).some((entry) => entry.port === port && sameAddress(entry.address, address));
}

/** `OUTBOUND_ALLOWLIST`: `address:port` pairs (IPv6 as `[addr]:port`), compared as parsed addresses. */
function allowlist(env: OutboundEnv): { address: Address; port: number }[] {
  return (env.OUTBOUND_ALLOWLIST ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map((entry) => {
      const colon = entry.lastIndexOf(":");
      const address = parseAddress(entry.slice(0, colon));
      const port = Number(entry.slice(colon + 1));
      // A mistyped entry must not silently let nothing (or something else) through.
      if (colon < 0 || !address || !Number.isInteger(port) || port < 1 || port > 65535)
        throw new Error(`OUTBOUND_ALLOWLIST entry "${entry}" is not address:port`);
      return { address, port };
    });
}
