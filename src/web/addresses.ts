/**
 * Which IP addresses are not the public internet (docs/permissions.md, "Network"): loopback, private ranges,
 * link-local (cloud metadata services live there), carrier-grade NAT, unspecified, multicast and reserved
 * ranges, and IPv6's equivalents (IPv4-mapped addresses are judged as their IPv4 address). awl reaches them only
 * when a rule names them: a page, or a DNS name the model chose, must not turn awl against the user's own network.
 */
import { isIP } from "node:net";

/** The IPv4 ranges that are not public, as [first octets, prefix length, name]. */
const V4_RANGES: readonly [number[], number, string][] = [
  [[0], 8, "unspecified"],
  [[10], 8, "private"],
  [[100, 64], 10, "carrier-grade NAT"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "reserved"],
  [[192, 168], 16, "private"],
  [[198, 18], 15, "benchmarking"],
  [[224], 4, "multicast"],
  [[240], 4, "reserved"],
];

/** What kind of non-public address `address` is ("loopback", "private", …); undefined for a public one. */
export function nonPublicKind(address: string): string | undefined {
  const plain = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = isIP(plain);
  if (family === 4) return v4Kind(plain);
  if (family !== 6) return undefined;
  const words = expandV6(plain.toLowerCase());
  const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms are that IPv4 address.
  if (words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || (words[5] === 0 && words[6] !== 0))) return v4Kind(v4Of(words[6]!, words[7]!));
  if (words.every((w) => w === 0)) return "unspecified";
  if (words.slice(0, 7).every((w) => w === 0) && words[7] === 1) return "loopback";
  if ((words[0]! & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((words[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((words[0]! & 0xff00) === 0xff00) return "multicast";
  if (words[0] === 0x64 && words[1] === 0xff9b) return v4Kind(v4Of(words[6]!, words[7]!)); // NAT64
  return undefined;
}

function v4Kind(address: string): string | undefined {
  const octets = address.split(".").map(Number);
  const value = ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!;
  for (const [start, prefix, kind] of V4_RANGES) {
    const base = start.reduce((sum, octet, i) => sum + ((octet << (24 - 8 * i)) >>> 0), 0);
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if (((value & mask) >>> 0) === ((base & mask) >>> 0)) return kind;
  }
  if (value === 0xffffffff) return "broadcast";
  return undefined;
}

/** An IPv6 address as its eight 16-bit words. */
function expandV6(address: string): number[] {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const o = v4[1]!.split(".").map(Number);
    text = text.slice(0, -v4[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((w) => parseInt(w || "0", 16));
}
