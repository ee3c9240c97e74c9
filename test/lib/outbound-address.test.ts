// Address parsing and the refused ranges as pure arithmetic: both edges of
// each range, the neighbours just outside, and the malformed literals that
// must not parse as addresses at all.
import { describe, expect, it } from "vitest";
import { formatAddress, parseAddress, parseIPv4, parseIPv6, refusalOf } from "../../src/lib/outbound/address";

const why = (host: string) => {
  const address = parseAddress(host);
  if (!address) throw new Error(`${host} did not parse`);
  return refusalOf(address);
};

describe("parsing", () => {
  it("reads dotted quads and refuses anything else", () => {
    expect([parseIPv4("0.0.0.0"), parseIPv4("127.0.0.1"), parseIPv4("255.255.255.255")]).toEqual([0, 2130706433, 4294967295]);
    for (const bad of ["256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4x", "1..2.3", "", "a.b.c.d", "1.2.3.-4", "1234.1.1.1"])
      expect([bad, parseIPv4(bad)]).toEqual([bad, null]);
  });

  it("reads IPv6 in every written form, bracketed or not", () => {
    expect(parseIPv6("[::1]")).toBe(1n);
    expect(parseIPv6("::")).toBe(0n);
    expect(parseIPv6("0:0:0:0:0:0:0:1")).toBe(1n);
    expect(parseIPv6("::ffff:127.0.0.1")).toBe(parseIPv6("::ffff:7f00:1"));
    expect(parseIPv6("2001:db8::")).toBe(0x20010db8n << 96n);
    expect(parseIPv6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe((1n << 128n) - 1n);
    expect(parseIPv6("1::")).toBe(1n << 112n);
    for (const bad of [
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "12345::",
      "::g",
      "1:2:3:4:5:6:7",
      "::1.2.3",
      "[::1",
      "1.2.3.4",
      ":::",
      "1:2:3:4:5:6:7:8::",
      "::1.2.3.4:5",
    ])
      expect([bad, parseIPv6(bad)]).toEqual([bad, null]);
  });

  it("tells names from addresses", () => {
    expect([parseAddress("example.com"), parseAddress("localhost"), parseAddress("1.2.3.4.example")]).toEqual([null, null, null]);
    expect(parseAddress("10.0.0.1")).toEqual({ family: 4, value: 167772161 });
    expect(parseAddress("[fe80::1]")).toEqual({ family: 6, value: (0xfe80n << 112n) | 1n });
  });

  it("formats addresses for reasons", () => {
    expect([formatAddress(parseAddress("10.0.0.1")!), formatAddress(parseAddress("[fd00::1]")!)]).toEqual(["10.0.0.1", "[fd00:0:0:0:0:0:0:1]"]);
  });
});

describe("refused ranges", () => {
  // [first, last, rule]: both edges refused with the rule, as are addresses in between.
  const v4: [string, string, string][] = [
    ["0.0.0.0", "0.255.255.255", "this network (0.0.0.0/8)"],
    ["10.0.0.0", "10.255.255.255", "private-use (10.0.0.0/8)"],
    ["100.64.0.0", "100.127.255.255", "shared address space (carrier-grade NAT) (100.64.0.0/10)"],
    ["127.0.0.0", "127.255.255.255", "loopback (127.0.0.0/8)"],
    ["169.254.0.0", "169.254.255.255", "link-local (cloud metadata) (169.254.0.0/16)"],
    ["172.16.0.0", "172.31.255.255", "private-use (172.16.0.0/12)"],
    ["192.0.0.0", "192.0.0.255", "IETF protocol assignments (192.0.0.0/24)"],
    ["192.0.2.0", "192.0.2.255", "documentation (TEST-NET-1) (192.0.2.0/24)"],
    ["192.88.99.0", "192.88.99.255", "deprecated 6to4 relay anycast (192.88.99.0/24)"],
    ["192.168.0.0", "192.168.255.255", "private-use (192.168.0.0/16)"],
    ["198.18.0.0", "198.19.255.255", "benchmarking (198.18.0.0/15)"],
    ["198.51.100.0", "198.51.100.255", "documentation (TEST-NET-2) (198.51.100.0/24)"],
    ["203.0.113.0", "203.0.113.255", "documentation (TEST-NET-3) (203.0.113.0/24)"],
    ["224.0.0.0", "239.255.255.255", "multicast (224.0.0.0/4)"],
    ["240.0.0.0", "255.255.255.255", "reserved (broadcast included) (240.0.0.0/4)"],
  ];
  it.each(v4)("IPv4 %s - %s: %s", (first, last, rule) => {
    expect([why(first), why(last)]).toEqual([rule, rule]);
  });

  it("lets through the IPv4 neighbours just outside each range", () => {
    const outside = [
      "1.0.0.0",
      "9.255.255.255",
      "11.0.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "126.255.255.255",
      "128.0.0.0",
      "169.253.255.255",
      "169.255.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "191.255.255.255",
      "192.0.1.0",
      "192.0.3.0",
      "192.88.98.255",
      "192.167.255.255",
      "192.169.0.0",
      "198.17.255.255",
      "198.20.0.0",
      "198.51.99.255",
      "203.0.112.255",
      "203.0.114.0",
      "223.255.255.255",
      "8.8.8.8",
      "93.184.216.34",
    ];
    expect(outside.filter((a) => why(a) !== null)).toEqual([]);
  });

  const v6: [string, string][] = [
    ["[::]", "unspecified (::/128)"],
    ["[::1]", "loopback (::1/128)"],
    ["[::ffff:127.0.0.1]", "IPv4-mapped (::ffff:0:0/96) of 127.0.0.1, loopback (127.0.0.0/8)"],
    ["[::ffff:0.0.0.0]", "IPv4-mapped (::ffff:0:0/96) of 0.0.0.0, this network (0.0.0.0/8)"],
    ["[::ffff:ffff:ffff]", "IPv4-mapped (::ffff:0:0/96) of 255.255.255.255, reserved (broadcast included) (240.0.0.0/4)"],
    ["[::0.0.0.2]", "IPv4-compatible (::/96) of 0.0.0.2, this network (0.0.0.0/8)"],
    ["[::a00:1]", "IPv4-compatible (::/96) of 10.0.0.1, private-use (10.0.0.0/8)"],
    ["[64:ff9b::c0a8:1]", "NAT64 (64:ff9b::/96) of 192.168.0.1, private-use (192.168.0.0/16)"],
    ["[2002:a00:1::]", "6to4 (2002::/16) of 10.0.0.1, private-use (10.0.0.0/8)"],
    ["[64:ff9b:1::]", "not global unicast (outside 2000::/3)"],
    ["[100::]", "not global unicast (outside 2000::/3)"],
    ["[100:0:0:1::]", "not global unicast (outside 2000::/3)"],
    ["[2001::]", "IETF protocol assignments (2001::/23)"],
    ["[2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff]", "IETF protocol assignments (2001::/23)"],
    ["[2001:db8::]", "documentation (2001:db8::/32)"],
    ["[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]", "documentation (2001:db8::/32)"],
    ["[3fff::]", "documentation (3fff::/20)"],
    ["[3fff:fff:ffff::]", "documentation (3fff::/20)"],
    ["[5f00::1]", "not global unicast (outside 2000::/3)"],
    ["[fc00::]", "unique-local (fc00::/7)"],
    ["[fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]", "unique-local (fc00::/7)"],
    ["[fe80::]", "link-local (fe80::/10)"],
    ["[febf:ffff::]", "link-local (fe80::/10)"],
    ["[fec0::]", "not global unicast (outside 2000::/3)"],
    ["[ff00::]", "multicast (ff00::/8)"],
    ["[ff02::1]", "multicast (ff00::/8)"],
    ["[1fff:ffff::]", "not global unicast (outside 2000::/3)"],
    ["[4000::]", "not global unicast (outside 2000::/3)"],
  ];
  it.each(v6)("IPv6 %s: %s", (address, rule) => {
    expect(why(address)).toBe(rule);
  });

  it("lets through global IPv6 and the IPv4-carrying forms of public IPv4", () => {
    const outside = [
      "[2000::]",
      "[2001:200::]",
      "[2001:db7:ffff::]",
      "[2001:db9::]",
      "[2606:4700::1111]",
      "[2a00:1450::1]",
      "[3ffe:ffff::]",
      "[3fff:1000::]",
      "[::ffff:8.8.8.8]",
      "[::8.8.8.8]",
      "[64:ff9b::808:808]",
      "[2002:808:808::1]",
      "[3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]",
    ];
    expect(outside.filter((a) => why(a) !== null)).toEqual([]);
  });
});
