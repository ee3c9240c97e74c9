// IP addresses as numbers, and which of them outbound requests may not reach.
// Host strings arrive as the WHATWG URL parser left them (IPv4 dotted-quad
// whatever the spelling, IPv6 bracketed) or as a resolver's answer; either
// way the check is arithmetic on the parsed value, never a pattern on text.

export type Address = { family: 4; value: number } | { family: 6; value: bigint };

/** `a.b.c.d` with each part 0-255 in decimal, as the URL parser and DNS write it. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** An IPv6 address, bracketed or not, `::` compressed or not, a trailing dotted quad allowed. */
export function parseIPv6(text: string): bigint | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!bare.includes(":")) return null;
  const halves = bare.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4(piece);
        if (v4 === null) return null;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) out.push(parseInt(piece, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail].reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** The address a host string is, or null when it is a name. */
export function parseAddress(host: string): Address | null {
  const v4 = parseIPv4(host);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(host);
  return v6 === null ? null : { family: 6, value: v6 };
}

export function formatAddress(address: Address): string {
  if (address.family === 4) return formatIPv4(address.value);
  const groups = Array.from({ length: 8 }, (_, i) => Number((address.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return `[${groups.join(":")}]`;
}

const formatIPv4 = (v: number) => [24, 16, 8, 0].map((shift) => (v >>> shift) & 255).join(".");

// The IPv4 ranges of the IANA special-purpose registry that are not globally
// reachable, plus multicast and the deprecated 6to4 relay anycast prefix.
// 192.0.0.0/24 is refused whole, its two global /32s (192.0.0.9, .10) included.
const IPV4_REFUSED: ReadonlyArray<[string, number, string]> = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private-use"],
  ["100.64.0.0", 10, "shared address space (carrier-grade NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private-use"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation (TEST-NET-1)"],
  ["192.88.99.0", 24, "deprecated 6to4 relay anycast"],
  ["192.168.0.0", 16, "private-use"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation (TEST-NET-2)"],
  ["203.0.113.0", 24, "documentation (TEST-NET-3)"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved (broadcast included)"],
];

const v4Ranges = IPV4_REFUSED.map(([base, prefix, label]) => ({
  base: parseIPv4(base)!,
  size: 2 ** (32 - prefix),
  name: `${base}/${prefix}`,
  label,
}));

function ipv4Refusal(value: number): string | null {
  const hit = v4Ranges.find((r) => value - (value % r.size) === r.base);
  return hit ? `${hit.label} (${hit.name})` : null;
}

const v6 = (text: string) => parseIPv6(text)!;
const inV6 = (value: bigint, base: string, prefix: number) => value >> BigInt(128 - prefix) === v6(base) >> BigInt(128 - prefix);
const low32 = (value: bigint) => Number(value & 0xffffffffn);

// Ranges of 2000::/3 (global unicast) that are still not globally reachable.
// 2001::/23 (IETF protocol assignments, Teredo included) is refused whole,
// its few global sub-ranges (AMT, AS112, ORCHIDv2, drone remote ID) too.
const IPV6_REFUSED_GLOBAL: ReadonlyArray<[string, number, string]> = [
  ["2001::", 23, "IETF protocol assignments"],
  ["2001:db8::", 32, "documentation"],
  ["3fff::", 20, "documentation"],
];

function ipv6Refusal(value: bigint): string | null {
  if (value === 0n) return "unspecified (::/128)";
  if (value === 1n) return "loopback (::1/128)";
  // Forms that carry an IPv4 address reach that address: they are as refused as it is.
  const embedded = (form: string, v4: number) => {
    const why = ipv4Refusal(v4);
    return why ? `${form} of ${formatIPv4(v4)}, ${why}` : null;
  };
  if (inV6(value, "::ffff:0:0", 96)) return embedded("IPv4-mapped (::ffff:0:0/96)", low32(value));
  if (inV6(value, "::", 96)) return embedded("IPv4-compatible (::/96)", low32(value));
  if (inV6(value, "64:ff9b::", 96)) return embedded("NAT64 (64:ff9b::/96)", low32(value));
  if (inV6(value, "2002::", 16)) return embedded("6to4 (2002::/16)", Number((value >> 80n) & 0xffffffffn));
  for (const [base, prefix, label] of IPV6_REFUSED_GLOBAL) if (inV6(value, base, prefix)) return `${label} (${base}/${prefix})`;
  if (inV6(value, "2000::", 3)) return null;
  // Outside global unicast: unique-local fc00::/7, link-local fe80::/10,
  // multicast ff00::/8, discard-only 100::/64, local NAT64 64:ff9b:1::/48,
  // SRv6 5f00::/16 and every reserved block.
  if (inV6(value, "fc00::", 7)) return "unique-local (fc00::/7)";
  if (inV6(value, "fe80::", 10)) return "link-local (fe80::/10)";
  if (inV6(value, "ff00::", 8)) return "multicast (ff00::/8)";
  return "not global unicast (outside 2000::/3)";
}

/** Why an outbound request may not reach this address, or null when it may. */
export function refusalOf(address: Address): string | null {
  return address.family === 4 ? ipv4Refusal(address.value) : ipv6Refusal(address.value);
}

export function sameAddress(a: Address, b: Address): boolean {
  return a.family === b.family && a.value === b.value;
}
