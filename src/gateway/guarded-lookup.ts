import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { McpkitError } from "../jsonrpc/errors.js";
import { isPrivateAddress } from "./private-address.js";

/**
 * The `lookup` of an HTTP upstream's connections: resolves with `base` (default `dns.lookup`) and refuses, when
 * any address it answers is private or link-local (see {@link isPrivateAddress}; loopback is allowed), with
 * `McpkitError` `TRANSPORT` (`details.reason: "private_address"`) naming the upstream, the host, the address and
 * the key that would allow it. Checked on every new connection, so a name that resolves to a public address
 * first and a private one later (DNS rebinding) is refused when it does: the connection goes only to an address
 * this checked.
 *
 * @example
 * nodeHttp({ lookup: guardedLookup("search") });
 */
export function guardedLookup(
  upstream: string,
  base: LookupFunction = dnsLookup as LookupFunction,
): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses: readonly (LookupAddress | string)[] = Array.isArray(address) ? address : [address];
      for (const entry of addresses) {
        const ip = typeof entry === "string" ? entry : entry.address;
        if (isPrivateAddress(ip)) {
          const refused = privateAddressError(upstream, hostname, ip);
          return callback(refused as NodeJS.ErrnoException, address, family);
        }
      }
      callback(null, address, family);
    });
  };
}

function privateAddressError(upstream: string, host: string, address: string): McpkitError {
  const key = `mcpServers.${upstream}.allowPrivateAddress`;
  return new McpkitError(
    "TRANSPORT",
    `upstream "${upstream}": ${host} resolved to ${address}, a private or link-local address; set ${key}: true to allow it`,
    { details: { reason: "private_address", upstream, host, address, key } },
  );
}
