import { checkKeys as checkOptionKeys, optionError } from "../../jsonrpc/config-check.js";
import type { McpkitError } from "../../jsonrpc/errors.js";

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** A checked resource identifier: kept as the exact string given, with the parts the well-known URLs need. */
export interface CheckedResource {
  /** The identifier, byte for byte as configured (never re-serialized: clients compare it exactly). */
  readonly resource: string;
  readonly origin: string;
  /** The path, `""` when the resource is an origin (`https://mcp.example.com` or `https://mcp.example.com/`). */
  readonly path: string;
}

/**
 * Checks a canonical resource identifier (RFC 8707 / RFC 9728): an absolute `https` URL (or `http` on a
 * loopback host), lowercase scheme and host, no fragment, no query, no userinfo. Throws `INVALID_CONFIG`.
 */
export function checkResource(key: string, resource: unknown): CheckedResource {
  if (typeof resource !== "string" || resource === "") throw invalid(key, "must be a non-empty URL string");
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw invalid(key, "must be an absolute URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw invalid(key, "must be an https URL (http only on a loopback host)");
  }
  if (resource.includes("#")) throw invalid(key, "must not have a fragment");
  if (url.search !== "" || resource.includes("?")) throw invalid(key, "must not have a query");
  if (url.username !== "" || url.password !== "") throw invalid(key, "must not carry credentials");
  const scheme = resource.slice(0, resource.indexOf(":"));
  const authority = resource.slice(scheme.length + 3).split("/")[0] ?? "";
  if (scheme !== scheme.toLowerCase() || authority !== authority.toLowerCase()) {
    throw invalid(key, "must have a lowercase scheme and host (the canonical form clients send)");
  }
  const path = url.pathname === "/" ? "" : url.pathname;
  return { resource, origin: url.origin, path };
}

/** The two well-known URLs of a resource's metadata (RFC 9728 §3.1): the path form first, then the root. */
export function metadataUrls(resource: CheckedResource): { pathForm: string; root: string } {
  return {
    pathForm: `${resource.origin}${WELL_KNOWN}${resource.path}`,
    root: `${resource.origin}${WELL_KNOWN}`,
  };
}

/** True for `localhost`, `*.localhost`, `127.0.0.0/8` and `::1`. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || host === "::1") return true;
  const octets = host.split(".");
  return (
    octets.length === 4 && octets[0] === "127" && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  );
}

/** An `INVALID_CONFIG` error naming the option. */
export function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, "auth option ");
}

/** Rejects keys that are not options. */
export function checkKeys(what: string, options: unknown, keys: readonly string[]): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw invalid(what, "must be an object");
  }
  checkOptionKeys(options, keys, "auth option ");
}

/** A list of scope tokens (RFC 6749 §3.3: printable ASCII, no space, quote or backslash). */
export function checkScopes(key: string, scopes: unknown): readonly string[] {
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes)) throw invalid(key, "must be an array of scope strings");
  for (const scope of scopes) {
    if (typeof scope !== "string" || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) {
      throw invalid(key, `has an invalid scope ${JSON.stringify(scope)}`);
    }
  }
  return Object.freeze([...new Set(scopes as string[])]);
}
