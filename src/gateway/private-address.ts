/**
 * True for an IP literal in a private or link-local range: 10/8, 172.16/12, 192.168/16, 169.254/16 (where cloud
 * metadata services answer), 100.64/10 (carrier-grade NAT), 0/8, and IPv6 unique-local (fc00::/7), link-local
 * (fe80::/10) and IPv4-mapped forms of those. Loopback is not private here (a local upstream is the common
 * case). A host name is not an IP literal and gives false: the addresses it resolves to are checked at connect
 * time (`guardedLookup`).
 *
 * @example
 * isPrivateAddress("169.254.169.254"); // true
 * isPrivateAddress("127.0.0.1"); // false
 */
export function isPrivateAddress(hostname: string): boolean {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1).toLowerCase() : hostname.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1] ?? hexMapped(host);
  const v4 = mapped ?? host;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  if (octets) {
    const [a, b] = [Number(octets[1]), Number(octets[2])];
    return (
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (!host.includes(":")) return false;
  return /^f[cd][0-9a-f]{0,2}:/.test(host) || /^fe[89ab][0-9a-f]?:/.test(host);
}

/** `::ffff:a01:203` (how the URL parser writes an IPv4-mapped address) as `10.1.2.3`. */
function hexMapped(host: string): string | undefined {
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!match) return undefined;
  const high = Number.parseInt(match[1] ?? "", 16);
  const low = Number.parseInt(match[2] ?? "", 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
