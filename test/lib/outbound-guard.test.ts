// The SSRF guard on real URL parsing and real (scripted) DNS: every spelling
// of a refused address is refused with the rule it breaks, names are judged
// by every address they resolve to, and public targets pass.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { outboundFetch } from "../../src/lib/outbound/client";
import { checkUrl } from "../../src/lib/outbound/guard";
import { OutboundError, type OutboundEnv } from "../../src/lib/outbound/types";
import { dnsRecords, outboundOrigin, scenario, type ScriptedResponse } from "../support/outbound";

const outboundEnv = env as unknown as OutboundEnv;
const port = () => new URL(outboundOrigin()).port;

beforeAll(async () => {
  await dnsRecords({
    "private.guard-a.test": { A: ["10.0.0.1"] },
    "mixed.guard-a.test": { A: ["93.184.216.34", "192.168.1.1"] },
    "loop6.guard-a.test": { AAAA: ["::1"] },
    "mixed6.guard-a.test": { A: ["93.184.216.34"], AAAA: ["2606:4700::1111", "fd00::1"] },
    "meta.guard-a.test": { A: ["169.254.169.254"] },
    "mapped.guard-a.test": { AAAA: ["::ffff:127.0.0.1"] },
    "cgnat.guard-a.test": { A: ["100.100.100.200"] },
    "empty.guard-a.test": { A: [], AAAA: [] },
    "public.guard-a.test": { A: ["93.184.216.34"] },
    "public6.guard-a.test": { AAAA: ["2606:4700::1111"] },
    "loopback.guard-a.test": { A: ["127.0.0.1"] },
  });
});

async function refusal(url: string): Promise<OutboundError> {
  const e = await checkUrl(url, outboundEnv).then(
    (ok) => ok,
    (err: unknown) => err,
  );
  if (!(e instanceof OutboundError)) throw new Error(`${url} was let through as ${String(e)}`);
  return e;
}

// [URL, failure kind, a piece of the reason naming the rule]
const refused: [string, "refused" | "unresolved", string][] = [
  // IPv4 loopback however the URL parser is made to spell it
  ["http://2130706433/", "refused", "127.0.0.1 is loopback (127.0.0.0/8)"],
  ["http://0177.0.0.1/", "refused", "127.0.0.1 is loopback"],
  ["http://0x7f000001/", "refused", "127.0.0.1 is loopback"],
  ["http://017700000001/", "refused", "127.0.0.1 is loopback"],
  ["http://0x7f.1/", "refused", "127.0.0.1 is loopback"],
  ["http://0x7F.0x0.0x0.0x1/", "refused", "127.0.0.1 is loopback"],
  ["http://127.1/", "refused", "127.0.0.1 is loopback"],
  ["http://127.0.1/", "refused", "127.0.0.1 is loopback"],
  ["http://127.0.0.1./", "refused", "127.0.0.1 is loopback"],
  ["http://%31%32%37.0.0.1/", "refused", "127.0.0.1 is loopback"],
  ["http://%30x7f.1/", "refused", "127.0.0.1 is loopback"],
  ["http://127。0。0。1/", "refused", "127.0.0.1 is loopback"],
  ["http://１２７.0.0.1/", "refused", "127.0.0.1 is loopback"],
  ["https://127.0.0.1/", "refused", "loopback (127.0.0.0/8)"],
  ["http://127.0.0.1:80/", "refused", "loopback (127.0.0.0/8)"],
  ["http://127.255.255.254/", "refused", "loopback (127.0.0.0/8)"],
  // the other IPv4 ranges
  ["http://0/", "refused", "0.0.0.0 is this network (0.0.0.0/8)"],
  ["http://0.0.0.0/", "refused", "this network (0.0.0.0/8)"],
  ["http://10.0.0.1/", "refused", "private-use (10.0.0.0/8)"],
  ["http://10.255.255.255/", "refused", "private-use (10.0.0.0/8)"],
  ["http://167772161/", "refused", "10.0.0.1 is private-use"],
  ["http://172.16.0.1/", "refused", "private-use (172.16.0.0/12)"],
  ["http://172.31.255.255/", "refused", "private-use (172.16.0.0/12)"],
  ["http://192.168.0.1/", "refused", "private-use (192.168.0.0/16)"],
  ["http://192.168.1.1:8080/admin", "refused", "private-use (192.168.0.0/16)"],
  ["http://0xc0a80001/", "refused", "192.168.0.1 is private-use"],
  ["http://100.64.0.1/", "refused", "shared address space (carrier-grade NAT) (100.64.0.0/10)"],
  ["http://100.127.255.255/", "refused", "(100.64.0.0/10)"],
  ["http://169.254.169.254/latest/meta-data", "refused", "169.254.169.254 is link-local (cloud metadata) (169.254.0.0/16)"],
  ["http://2852039166/", "refused", "169.254.169.254 is link-local"],
  ["http://169.254.0.1/", "refused", "(169.254.0.0/16)"],
  ["http://192.0.0.1/", "refused", "IETF protocol assignments (192.0.0.0/24)"],
  ["http://192.0.2.1/", "refused", "TEST-NET-1"],
  ["http://192.88.99.1/", "refused", "6to4 relay anycast"],
  ["http://198.18.0.1/", "refused", "benchmarking (198.18.0.0/15)"],
  ["http://198.19.255.255/", "refused", "benchmarking (198.18.0.0/15)"],
  ["http://198.51.100.7/", "refused", "TEST-NET-2"],
  ["http://203.0.113.9/", "refused", "TEST-NET-3"],
  ["http://224.0.0.1/", "refused", "multicast (224.0.0.0/4)"],
  ["http://239.255.255.250/", "refused", "multicast (224.0.0.0/4)"],
  ["http://240.0.0.1/", "refused", "reserved (broadcast included) (240.0.0.0/4)"],
  ["http://255.255.255.255/", "refused", "(240.0.0.0/4)"],
  // IPv6, and IPv4 inside IPv6
  ["http://[::1]/", "refused", "loopback (::1/128)"],
  ["http://[0:0:0:0:0:0:0:1]/", "refused", "loopback (::1/128)"],
  ["http://[0::1]/", "refused", "loopback (::1/128)"],
  ["http://[::]/", "refused", "unspecified (::/128)"],
  ["http://[::ffff:127.0.0.1]/", "refused", "IPv4-mapped (::ffff:0:0/96) of 127.0.0.1, loopback"],
  ["http://[::ffff:7f00:1]/", "refused", "IPv4-mapped (::ffff:0:0/96) of 127.0.0.1"],
  ["http://[::ffff:10.0.0.1]/", "refused", "IPv4-mapped (::ffff:0:0/96) of 10.0.0.1, private-use"],
  ["http://[::ffff:a9fe:a9fe]/", "refused", "of 169.254.169.254, link-local"],
  ["http://[::ffff:192.168.0.1]/", "refused", "of 192.168.0.1, private-use"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]/", "refused", "IPv4-mapped"],
  ["http://[::127.0.0.1]/", "refused", "IPv4-compatible (::/96) of 127.0.0.1"],
  ["http://[::10.0.0.1]/", "refused", "IPv4-compatible (::/96) of 10.0.0.1"],
  ["http://[64:ff9b::a9fe:a9fe]/", "refused", "NAT64 (64:ff9b::/96) of 169.254.169.254"],
  ["http://[64:ff9b::127.0.0.1]/", "refused", "NAT64 (64:ff9b::/96) of 127.0.0.1"],
  ["http://[64:ff9b::10.0.0.1]/", "refused", "NAT64 (64:ff9b::/96) of 10.0.0.1"],
  ["http://[2002:7f00:1::]/", "refused", "6to4 (2002::/16) of 127.0.0.1"],
  ["http://[2002:a9fe:a9fe::1]/", "refused", "6to4 (2002::/16) of 169.254.169.254"],
  ["http://[::ffff:0:7f00:1]/", "refused", "not global unicast"],
  ["http://[64:ff9b:1::1]/", "refused", "not global unicast"],
  ["http://[100::1]/", "refused", "not global unicast"],
  ["http://[2001::1]/", "refused", "IETF protocol assignments (2001::/23)"],
  ["http://[2001:db8::1]/", "refused", "documentation (2001:db8::/32)"],
  ["http://[3fff::1]/", "refused", "documentation (3fff::/20)"],
  ["http://[fc00::1]/", "refused", "unique-local (fc00::/7)"],
  ["http://[fd12:3456::1]/", "refused", "unique-local (fc00::/7)"],
  ["http://[fe80::1]/", "refused", "link-local (fe80::/10)"],
  ["http://[febf::1]/", "refused", "link-local (fe80::/10)"],
  ["http://[fec0::1]/", "refused", "not global unicast"],
  ["http://[ff02::1]/", "refused", "multicast (ff00::/8)"],
  ["http://[5f00::1]/", "refused", "not global unicast"],
  // The WHATWG parser takes no zone identifier: the URL itself is refused.
  ["http://[fe80::1%25eth0]/", "refused", "not a valid absolute URL"],
  // schemes, userinfo, malformed
  ["ftp://example.com/file", "refused", "the scheme ftp: is not allowed"],
  ["file:///etc/passwd", "refused", "the scheme file: is not allowed"],
  ["gopher://example.com:70/_GET", "refused", "the scheme gopher: is not allowed"],
  ["data:text/plain,hello", "refused", "the scheme data: is not allowed"],
  ["javascript:alert(1)", "refused", "the scheme javascript: is not allowed"],
  ["ws://example.com/socket", "refused", "the scheme ws: is not allowed"],
  ["http://user:pass@example.com/", "refused", "userinfo"],
  ["http://user@example.com/", "refused", "userinfo"],
  ["http://:pass@example.com/", "refused", "userinfo"],
  ["http://example.com@127.0.0.1/", "refused", "userinfo"],
  ["not a url", "refused", "not a valid absolute URL"],
  ["/relative/path", "refused", "not a valid absolute URL"],
  ["http://[::1/", "refused", "not a valid absolute URL"],
  // names, judged by what they resolve to
  ["http://private.guard-a.test/", "refused", "private.guard-a.test resolves to 10.0.0.1, private-use (10.0.0.0/8)"],
  ["http://PRIVATE.Guard-A.test./x", "refused", "resolves to 10.0.0.1, private-use"],
  ["http://mixed.guard-a.test/", "refused", "mixed.guard-a.test resolves to 192.168.1.1, private-use (192.168.0.0/16)"],
  ["http://loop6.guard-a.test/", "refused", "loop6.guard-a.test resolves to [0:0:0:0:0:0:0:1], loopback (::1/128)"],
  ["http://mixed6.guard-a.test/", "refused", "resolves to [fd00:0:0:0:0:0:0:1], unique-local (fc00::/7)"],
  ["http://meta.guard-a.test/latest/meta-data", "refused", "resolves to 169.254.169.254, link-local"],
  ["http://mapped.guard-a.test/", "refused", "IPv4-mapped (::ffff:0:0/96) of 127.0.0.1"],
  ["http://cgnat.guard-a.test/", "refused", "carrier-grade NAT"],
  // 127.0.0.1 is let through on the test server's ports only, not on the default one.
  ["http://loopback.guard-a.test/", "refused", "resolves to 127.0.0.1, loopback"],
  ["http://nothing.guard-a.test/", "unresolved", "nothing.guard-a.test has no A or AAAA address"],
  ["http://empty.guard-a.test/", "unresolved", "empty.guard-a.test has no A or AAAA address"],
  // `localhost` is not refused by its name: the resolver is asked, and knows nothing of it here.
  ["http://localhost/", "unresolved", "localhost has no A or AAAA address"],
];

describe("checkUrl refuses", () => {
  it("holds at least 60 refused spellings", () => {
    expect(refused.length).toBeGreaterThanOrEqual(60);
  });

  it.each(refused)("%s (%s)", async (url, kind, reason) => {
    const e = await refusal(url);
    expect([e.kind, e.reason]).toEqual([kind, expect.stringContaining(reason)]);
  });

  it("refuses the allowlisted address on another port, and its IPv4-mapped form on the allowlisted port", async () => {
    for (const url of ["http://127.0.0.1:2/", `http://[::ffff:127.0.0.1]:${port()}/`, `http://127.0.0.2:${port()}/`]) {
      expect([url, (await refusal(url)).kind]).toEqual([url, "refused"]);
    }
  });

  it("never puts the query or the path in the reason", async () => {
    const e = await refusal("http://10.0.0.1/private/path?token=s3cr3t");
    expect(e.reason).toBe("10.0.0.1 is private-use (10.0.0.0/8)");
  });
});

describe("checkUrl lets through", () => {
  const allowed = [
    ["http://93.184.216.34/", "http://93.184.216.34/"],
    ["https://[2606:4700::1111]/dns-query?x=1", "https://[2606:4700::1111]/dns-query?x=1"],
    ["http://[2606:4700:4700::1111]:8080/", "http://[2606:4700:4700::1111]:8080/"],
    ["http://8.8.8.8/", "http://8.8.8.8/"],
    ["http://134744072/", "http://8.8.8.8/"],
    ["http://172.32.0.1/", "http://172.32.0.1/"],
    ["http://100.128.0.1/", "http://100.128.0.1/"],
    ["http://169.253.255.255/", "http://169.253.255.255/"],
    ["http://[::ffff:93.184.216.34]/", "http://[::ffff:5db8:d822]/"],
    ["http://[64:ff9b::808:808]/", "http://[64:ff9b::808:808]/"],
    ["http://public.guard-a.test/a?b=c", "http://public.guard-a.test/a?b=c"],
    ["https://Public6.Guard-A.test:8443/x", "https://public6.guard-a.test:8443/x"],
  ];
  it.each(allowed)("%s", async (url, href) => {
    expect((await checkUrl(url, outboundEnv)).href).toBe(href);
  });

  it("lets the allowlisted test server through, by address and port", async () => {
    expect((await checkUrl(`${outboundOrigin()}/s/x`, outboundEnv)).href).toBe(`${outboundOrigin()}/s/x`);
    expect((await checkUrl(`http://loopback.guard-a.test:${port()}/`, outboundEnv)).hostname).toBe("loopback.guard-a.test");
  });

  it("refuses a name with one public and one private address even when the public one comes first", async () => {
    const e = await refusal("http://mixed.guard-a.test/");
    expect(e.reason).toBe("mixed.guard-a.test resolves to 192.168.1.1, private-use (192.168.0.0/16)");
  });
});

describe("OUTBOUND_ALLOWLIST", () => {
  it("matches IPv6 entries by value and refuses a malformed entry loudly", async () => {
    const v6 = { ...outboundEnv, OUTBOUND_ALLOWLIST: "[0:0::1]:8080" };
    expect((await checkUrl("http://[::1]:8080/", v6)).host).toBe("[::1]:8080");
    await expect(checkUrl("http://[::1]:8081/", v6)).rejects.toThrow("loopback (::1/128)");
    await expect(checkUrl("http://[::1]:8080/", { ...outboundEnv, OUTBOUND_ALLOWLIST: "localhost:8080" })).rejects.toThrow(
      'OUTBOUND_ALLOWLIST entry "localhost:8080" is not address:port',
    );
  });

  it("lets nothing through when empty", async () => {
    const e = await checkUrl(`${outboundOrigin()}/`, { ...outboundEnv, OUTBOUND_ALLOWLIST: "" }).catch((err: OutboundError) => err);
    expect([(e as OutboundError).kind, (e as OutboundError).reason]).toEqual(["refused", "127.0.0.1 is loopback (127.0.0.0/8)"]);
  });
});

describe("the resolver", () => {
  /** The guard's env with a scripted DNS-over-HTTPS endpoint answering every query with `response`. */
  async function scriptedDns(response: ScriptedResponse) {
    const dns = await scenario({ "/dns": [response] });
    return { dns, env: { ...outboundEnv, OUTBOUND_DNS_URL: dns.url("/dns") } };
  }

  it("asks for A and AAAA as DNS JSON, skipping CNAME records on the way", async () => {
    const { dns, env: withDns } = await scriptedDns({
      json: {
        Status: 0,
        Answer: [
          { type: 5, data: "alias.example." },
          { type: 1, data: "10.0.0.1" },
        ],
      },
    });
    const e = await checkUrl("http://Named.Example/x?y=1", withDns).catch((err: OutboundError) => err);
    expect([(e as OutboundError).kind, (e as OutboundError).reason]).toEqual(["refused", "named.example resolves to 10.0.0.1, private-use (10.0.0.0/8)"]);
    const seen = (await dns.requests()).map((r) => [r.method, r.path, r.headers.accept]).sort();
    expect(seen).toEqual([
      ["GET", "/dns?name=named.example&type=A", "application/dns-json"],
      ["GET", "/dns?name=named.example&type=AAAA", "application/dns-json"],
    ]);
  });

  it("fails with unresolved when the resolver fails, errs or answers nonsense", async () => {
    const cases: [ScriptedResponse, string][] = [
      [{ json: { Status: 2, Answer: [] } }, "lookup of x.example (DNS status 2)"],
      [{ status: 500, body: "down" }, "(status 500)"],
      [{ body: "not json" }, "the resolver gave no"],
      [{ json: { Status: 0, Answer: [{ type: 1, data: "not-an-address" }] } }, "an unreadable A record for x.example"],
      [{ json: { Status: 0, Answer: [{ type: 28, data: "10.0.0.1" }] } }, "an unreadable AAAA record for x.example"],
    ];
    for (const [response, reason] of cases) {
      const { env: withDns } = await scriptedDns(response);
      const e = await checkUrl("http://x.example/", withDns).catch((err: OutboundError) => err);
      expect([(e as OutboundError).kind, (e as OutboundError).reason]).toEqual(["unresolved", expect.stringContaining(reason)]);
    }
  });

  it("counts a slow resolver in the request's timeout, which fails as timeout", async () => {
    const { env: withDns } = await scriptedDns({ delayMs: 3_000, json: { Status: 0, Answer: [{ type: 1, data: "93.184.216.34" }] } });
    const e = await outboundFetch(
      { url: "http://slow.example/", method: "GET", headers: {}, redirect: "follow", timeoutMs: 300, maxResponseBytes: 100 },
      withDns,
    ).catch((err: OutboundError) => err);
    expect([(e as OutboundError).kind, (e as OutboundError).reason]).toEqual(["timeout", "no complete answer within 300 ms"]);
  });
});
