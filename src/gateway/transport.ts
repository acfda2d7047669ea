import type { LookupFunction } from "node:net";
import { type HttpAuthProvider, StreamableHttpClientTransport } from "../http/index.js";
import { nodeHttp } from "../node/index.js";
import { launchStdio } from "../stdio/index.js";
import type { Transport } from "../transports/transport.js";
import type { UpstreamTarget } from "./config.js";
import { guardedLookup } from "./guarded-lookup.js";

/** A transport to an upstream, and how to tell that it ended underneath (a stdio process that exited). */
export interface UpstreamTransport {
  transport: Transport;
  /** Resolves when a stdio upstream's process ended; never for HTTP. */
  ended: Promise<void>;
  /** Why it ended, for the error a call gets (`exited with code 3`, and the stderr tail). */
  why(): string;
}

const NEVER = new Promise<void>(() => {});

/**
 * Opens the transport of one upstream: a subprocess under the `gateway` stdio preset (only the variables the
 * config lists, plus `inheritEnv` of the gateway's own; stderr kept as a tail for errors, never logged), or
 * Streamable HTTP on `node:http` with the config's static headers and, when the gateway was given one for this
 * upstream, its auth provider (an `OAuthClient` of mcpkit/auth, with its own token store); its host name is
 * resolved by `lookup` (default `dns.lookup`) and, unless `allowPrivateAddress`, every address checked.
 */
export function openUpstream(
  name: string,
  target: UpstreamTarget,
  timeoutMs: number,
  authProvider: HttpAuthProvider | undefined,
  lookup: LookupFunction | undefined,
): UpstreamTransport {
  if (target.kind === "http") {
    // Each new connection's addresses are checked as it opens, unless the entry allows private ones.
    const resolve = target.allowPrivateAddress ? lookup : guardedLookup(name, lookup);
    const transport = new StreamableHttpClientTransport({
      url: target.url,
      headers: { ...target.headers },
      ...(authProvider === undefined ? {} : { authProvider }),
      http: nodeHttp(resolve === undefined ? {} : { lookup: resolve }),
      policy: { preset: "gateway", requestTimeoutMs: timeoutMs, receiveTimeoutMs: timeoutMs },
      logger: { warn: () => {} },
    });
    return { transport, ended: NEVER, why: () => "" };
  }
  const env: { [name: string]: string } = {};
  for (const name of target.inheritEnv) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, target.env);
  const transport = launchStdio({
    command: target.command,
    args: target.args,
    env,
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    policy: { preset: "gateway" },
  });
  const ended = transport.closed.then(
    () => undefined,
    () => undefined,
  );
  const why = () => {
    const exit = transport.exit;
    const how =
      exit === undefined
        ? "its connection ended"
        : exit.signal !== null
          ? `killed by ${exit.signal}`
          : `exited with code ${exit.code}`;
    return how;
  };
  return { transport, ended, why };
}
