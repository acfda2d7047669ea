/**
 * Host and Origin checks: the DNS-rebinding protection that runs before anything else reads the request.
 *
 * Host entries are host names (`localhost`, `mcp.example.com`, `::1` or `[::1]`), optionally with a port; an
 * entry without a port matches any port, `host:port` only that port. Origin entries are
 * `scheme://host[:port]`: without a port the scheme's default port (80/443), `:*` any port. `"*"` in either
 * list allows everything (for a handler behind a proxy that already checks).
 */

/** Default `allowedHosts`: loopback names, any port. */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "::1"];

/** Default `allowedOrigins`: `http` and `https` on loopback, any port. */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"].flatMap(
  (host) => [`http://${host}:*`, `https://${host}:*`],
);

interface HostRule {
  host: string;
  /** `undefined`: any port. */
  port: number | undefined;
}

interface OriginRule {
  scheme: "http" | "https";
  host: string;
  /** `"*"`: any port. */
  port: number | "*";
}

/** A compiled Host/Origin policy. */
export interface OriginPolicy {
  hostAllowed(host: string | null, scheme: string): boolean;
  /** A request without an `Origin` header (not a browser) passes. */
  originAllowed(origin: string | null): boolean;
}

const DEFAULT_PORT: { [scheme: string]: number } = { http: 80, https: 443 };

/** Splits `host[:port]` (IPv6 in brackets) into a lowercase, bracketed host and a port; `undefined` if bad. */
function splitHost(value: string): { host: string; port: string | undefined } | undefined {
  const text = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^\s/?#@[\]:]+)(?::(\d{1,5}|\*))?$/.exec(text);
  if (!match?.[1]) return undefined;
  return { host: match[1], port: match[2] };
}

function portNumber(text: string): number | undefined {
  const port = Number(text);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}

function compileHost(entry: string): HostRule | "*" {
  if (entry === "*") return "*";
  // A bare IPv6 address (the seed's `::1`) is written without brackets.
  const bracketed = /^[0-9a-f]*:[0-9a-f:.]*$/i.test(entry) ? `[${entry}]` : entry;
  const parts = splitHost(bracketed);
  const port = parts?.port === undefined ? undefined : portNumber(parts.port);
  if (!parts || parts.port === "*" || (parts.port !== undefined && port === undefined)) {
    throw new TypeError(`allowedHosts entry "${entry}" is not a host name with an optional port`);
  }
  return { host: parts.host, port };
}

function compileOrigin(entry: string): OriginRule | "*" {
  if (entry === "*") return "*";
  const match = /^(https?):\/\/(.+?)\/?$/i.exec(entry.trim());
  const parts = match?.[2] === undefined ? undefined : splitHost(match[2]);
  const scheme = match?.[1]?.toLowerCase() as OriginRule["scheme"] | undefined;
  if (!parts || !scheme) {
    throw new TypeError(`allowedOrigins entry "${entry}" is not scheme://host[:port] with http or https`);
  }
  if (parts.port === "*") return { scheme, host: parts.host, port: "*" };
  const port = parts.port === undefined ? DEFAULT_PORT[scheme] : portNumber(parts.port);
  if (port === undefined) throw new TypeError(`allowedOrigins entry "${entry}" has a bad port`);
  return { scheme, host: parts.host, port };
}

/**
 * Compiles the two allow-lists. Throws `TypeError` naming a malformed entry (the options check turns it into
 * `INVALID_CONFIG`).
 */
export function compileOriginPolicy(hosts: readonly string[], origins: readonly string[]): OriginPolicy {
  const hostRules = hosts.map(compileHost);
  const originRules = origins.map(compileOrigin);
  const anyHost = hostRules.includes("*");
  const anyOrigin = originRules.includes("*");
  const hostAllowed = (value: string | null, scheme: string): boolean => {
    if (anyHost) return true;
    const parts = value === null ? undefined : splitHost(value);
    if (!parts || parts.port === "*") return false;
    const port = parts.port === undefined ? DEFAULT_PORT[scheme] : portNumber(parts.port);
    return hostRules.some(
      (rule) => rule !== "*" && rule.host === parts.host && (rule.port === undefined || rule.port === port),
    );
  };
  // A client sends the same Host on every request: the last verdict is kept.
  let last: { value: string | null; scheme: string; allowed: boolean } | undefined;
  return {
    hostAllowed(value, scheme) {
      if (last === undefined || last.value !== value || last.scheme !== scheme) {
        last = { value, scheme, allowed: hostAllowed(value, scheme) };
      }
      return last.allowed;
    },
    originAllowed(value) {
      if (value === null || anyOrigin) return true;
      const match = /^(https?):\/\/([^/]+)$/i.exec(value.trim());
      const parts = match?.[2] === undefined ? undefined : splitHost(match[2]);
      const scheme = match?.[1]?.toLowerCase();
      if (!parts || !scheme || parts.port === "*") return false;
      const port = parts.port === undefined ? DEFAULT_PORT[scheme] : portNumber(parts.port);
      return originRules.some(
        (rule) =>
          rule !== "*" &&
          rule.scheme === scheme &&
          rule.host === parts.host &&
          (rule.port === "*" || rule.port === port),
      );
    },
  };
}
