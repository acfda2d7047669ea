/**
 * The key an anonymous caller's sessions are counted under: an IPv4 address as it is (an IPv4-mapped IPv6
 * address is its IPv4 address), an IPv6 address by its /64 prefix (one host usually holds a whole /64, so a
 * per-address count would be no bound). `undefined` when there is no address or it is not an IP address.
 *
 * @example
 * addressKey("::ffff:192.0.2.1"); // "192.0.2.1"
 * addressKey("2001:db8:0:1::7"); // "2001:db8:0:1::/64"
 */
export function addressKey(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const text = address.trim().toLowerCase();
  if (IPV4.test(text)) return text;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped?.[1] !== undefined && IPV4.test(mapped[1])) return mapped[1];
  const groups = ipv6Groups(text.replace(/%.*$/, ""));
  if (groups === undefined) return undefined;
  return `${groups.slice(0, 4).join(":")}::/64`;
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const GROUP = /^[0-9a-f]{1,4}$/;

/** The eight groups of an IPv6 address (without leading zeros), or `undefined` when it is not one. */
function ipv6Groups(text: string): string[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const split = (half: string | undefined) => (half ? half.split(":") : []);
  const head = split(halves[0]);
  const tail = split(halves[1]);
  // A dotted IPv4 tail (::ffff:... handled above; others such as 64:ff9b::1.2.3.4) fills two groups.
  const last = tail.length > 0 ? tail : head;
  const dotted = last.at(-1);
  if (dotted !== undefined && IPV4.test(dotted)) {
    const [a, b, c, d] = dotted.split(".").map(Number) as [number, number, number, number];
    last.splice(-1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  if (!groups.every((group) => GROUP.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}
