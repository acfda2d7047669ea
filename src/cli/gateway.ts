import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  createGateway,
  type GatewayOptions,
  type GatewayPlugin,
  parseGatewayConfig,
} from "../gateway/index.js";
import { createHttpHandler } from "../http/index.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { serve } from "../node/index.js";
import type { Server } from "../server/index.js";
import { serveStdio } from "../stdio/index.js";
import { ExitCode, type ExitStatus } from "./exit-codes.js";
import { GatewayCredentials } from "./gateway-auth.js";
import { type GatewayFront, gatewayFront } from "./gateway-front.js";
import { runGatewayLogin } from "./gateway-login.js";
import type { CliIo } from "./io.js";

/** The text of `mcpkit gateway --help`. */
export const GATEWAY_USAGE = `mcpkit gateway: many MCP servers behind one endpoint

Usage:
  mcpkit gateway --config FILE [--stdio | --host HOST --port PORT --path PATH]
  mcpkit gateway login --config FILE UPSTREAM   (once, for an upstream with "oauth" authorization_code)

The config is a desktop client's "mcpServers" file, plus gateway keys (docs/gateway.md). Over HTTP (the
default) the first line on stdout is the URL it listens on; --stdio serves one client on stdin/stdout.
The config is read again on SIGHUP and when the file changes: upstreams whose entry did not change keep
running. Ctrl-C (or SIGTERM) stops it and every upstream. An HTTP upstream's "oauth" gets its tokens (a
client_credentials grant, or what "mcpkit gateway login" stored) and keeps them in its own file of the token
directory ("gateway": {"tokenStore": {"dir": ...}}, default ~/.config/mcpkit/gateway-tokens). With
"gateway": {"redis": {"url": ...}} in the config, several instances behind a load balancer share sessions and
subscriptions through that Redis. With "gateway": {"auth": {"issuer": ..., "resource": ...}}, every request
needs a JWT access token of that issuer for that resource (401 with Protected Resource Metadata otherwise).

Flags:
  --config FILE   the config file (required)
  --stdio         serve over stdio instead of HTTP
  --host HOST     interface to listen on (default 127.0.0.1)
  --port PORT     port (default 0: any free port)
  --path PATH     endpoint path (default /mcp)
  --no-watch      reload on SIGHUP only, not when the file changes
  --otel          trace and measure with the OpenTelemetry SDK this process registered (node --import ...):
                  a span per request, and one per call to an upstream, in the caller's trace
  -h, --help      this text
`;

/** What the command needs from its process besides its streams: the reload signal. */
export interface GatewayProcess {
  /** Calls `listener` on each SIGHUP; returns what stops that. */
  onHangup(listener: () => void): () => void;
}

/**
 * Runs `mcpkit gateway` until `io.interrupt` fires: serves the config's upstreams over HTTP (printing the URL
 * first) or stdio, reloading the config on SIGHUP or a change of the file. Resolves with the exit status.
 *
 * @example
 * const status = await runGateway(["--config", "gateway.json"], io, { onHangup: (l) => (process.on("SIGHUP", l), () => process.off("SIGHUP", l)) });
 */
export async function runGateway(
  argv: readonly string[],
  io: CliIo,
  proc: GatewayProcess,
): Promise<ExitStatus> {
  if (argv[0] === "login") return runGatewayLogin(argv.slice(1), io);
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    io.stderr.write(`mcpkit gateway: ${(error as Error).message.split("\n")[0]}\n${GATEWAY_USAGE}`);
    return ExitCode.USAGE;
  }
  if (values.help) {
    io.stdout.write(GATEWAY_USAGE);
    return ExitCode.OK;
  }
  const file = values.config;
  if (file === undefined) {
    io.stderr.write(`mcpkit gateway: --config FILE is required\n${GATEWAY_USAGE}`);
    return ExitCode.USAGE;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr.write("mcpkit gateway: --port must be 0 to 65535\n");
    return ExitCode.USAGE;
  }
  const note = (text: string) => io.stderr.write(`mcpkit gateway: ${text}\n`);
  let server: Server;
  const credentials = new GatewayCredentials(file, process.env);
  let cluster: RedisCluster | undefined;
  let front: GatewayFront | undefined;
  let auth: string | undefined;
  try {
    const config = readConfig(file);
    const checked = parseGatewayConfig(config);
    auth = JSON.stringify(checked.auth);
    if (checked.auth !== undefined) {
      if (values.stdio) {
        io.stderr.write("mcpkit gateway: gateway.auth protects the HTTP endpoint; --stdio has none\n");
        return ExitCode.USAGE;
      }
      front = await gatewayFront(checked.auth);
    }
    await credentials.prepare(checked);
    if (checked.redis !== undefined) {
      try {
        cluster = await connectRedis(checked.redis, note);
      } catch (error) {
        note(`gateway.redis: ${(error as Error).message}`);
        return ExitCode.CONNECTION;
      }
    }
    server = createGateway({
      ...(values.otel ? await gatewayTracing() : {}),
      config: withoutAuth(config),
      authProviders: (upstream, entries) => credentials.provider(upstream, entries),
      ...(cluster === undefined ? {} : { cluster }),
    });
  } catch (error) {
    await cluster?.close().catch(() => {});
    io.stderr.write(`mcpkit gateway: ${file}: ${(error as Error).message}\n`);
    return error instanceof McpkitError && error.code === "INVALID_CONFIG"
      ? ExitCode.USAGE
      : ExitCode.INTERNAL;
  }
  const gateway = server.plugin("gateway") as GatewayPlugin;
  let reloading = Promise.resolve();
  const reload = (why: string) => {
    reloading = reloading.then(async () => {
      try {
        const config = readConfig(file);
        const checked = parseGatewayConfig(config);
        if (JSON.stringify(checked.auth) !== auth) {
          throw new McpkitError(
            "INVALID_CONFIG",
            "gateway.auth cannot change on reload; restart the gateway",
          );
        }
        await credentials.prepare(checked);
        await gateway.reload(withoutAuth(config));
        note(`reloaded ${file} (${why})`);
      } catch (error) {
        note(`kept the running config: ${file}: ${(error as Error).message}`);
      }
    });
  };
  const stopHangup = proc.onHangup(() => reload("SIGHUP"));
  const watcher = values["no-watch"] ? undefined : watchFile(file, () => reload("file changed"));
  try {
    await server.ready;
    if (values.stdio) {
      note(`serving ${gateway.status().length} upstream(s) on stdio`);
      // Serves until stdin ends (the client went away) or Ctrl-C.
      await serveStdio(server, { signal: io.interrupt, input: io.stdin, output: io.stdout });
      return ExitCode.OK;
    }
    {
      const handler = createHttpHandler(server, front ? { authenticate: front.authenticate } : {});
      const served = front ? (request: Request) => front.handle(request) ?? handler(request) : handler;
      const handle = await serve(served, {
        host: values.host ?? "127.0.0.1",
        port,
        ...(values.path === undefined ? {} : { path: values.path }),
        ...(front ? { extraPaths: front.paths } : {}),
      });
      // Scaled out, the URL is printed once this instance is on the cluster bus (its sessions reachable).
      await handler.clusterReady;
      io.stdout.write(`${handle.url}\n`);
      io.interrupt.addEventListener("abort", () => void handle.close().then(() => handler.close()), {
        once: true,
      });
    }
    await new Promise<void>((resolve) => {
      if (io.interrupt.aborted) resolve();
      io.interrupt.addEventListener("abort", () => resolve(), { once: true });
    });
    return ExitCode.OK;
  } catch (error) {
    note((error as Error).message);
    return ExitCode.CONNECTION;
  } finally {
    stopHangup();
    watcher?.close();
    await reloading;
    await server.close().catch(() => {});
    await cluster?.close().catch(() => {});
  }
}

type RedisCluster = Awaited<ReturnType<typeof import("../redis/index.js").createRedisCluster>>;

/** mcpkit/redis, loaded only for a config that names a Redis (the `redis` package is an optional peer). */
async function connectRedis(
  redis: { url: string; prefix: string | undefined },
  note: (text: string) => void,
): Promise<RedisCluster> {
  const { createRedisCluster } = await import("../redis/index.js");
  return createRedisCluster({
    url: redis.url,
    ...(redis.prefix === undefined ? {} : { prefix: redis.prefix }),
    onStateChange: (state, error) =>
      note(`redis connection ${state}${error instanceof Error ? `: ${error.message}` : ""}`),
  });
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: "string" },
      stdio: { type: "boolean" },
      host: { type: "string" },
      port: { type: "string" },
      path: { type: "string" },
      "no-watch": { type: "boolean" },
      otel: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/**
 * `--otel`: mcpkit/otel's server plugin and upstream transport wrapper on the global OpenTelemetry API, so the
 * SDK the process registered before the CLI ran (`node --import ./otel.mjs`, or `NODE_OPTIONS`) gets the spans
 * and metrics. mcpkit/otel and `@opentelemetry/api` load only with the flag.
 */
async function gatewayTracing(): Promise<Pick<GatewayOptions, "plugins" | "upstreamTransport">> {
  let otel: typeof import("../otel/index.js");
  try {
    otel = await import("../otel/index.js");
  } catch (error) {
    throw new McpkitError(
      "INVALID_CONFIG",
      `--otel needs the OpenTelemetry API: npm install @opentelemetry/api (${(error as Error).message})`,
    );
  }
  return {
    plugins: [otel.otelServerPlugin()],
    upstreamTransport: (transport) => otel.otelClientTransport(transport),
  };
}

/** The config without `gateway.auth`, which this command reads and `createGateway` refuses. */
function withoutAuth(config: unknown): unknown {
  if (typeof config !== "object" || config === null) return config;
  const { gateway, ...rest } = config as { gateway?: unknown };
  if (typeof gateway !== "object" || gateway === null || !("auth" in gateway)) return config;
  const { auth: _auth, ...kept } = gateway as { auth?: unknown };
  return { ...rest, gateway: kept };
}

function readConfig(file: string): unknown {
  const text = readFileSync(file, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new McpkitError("INVALID_CONFIG", `is not JSON: ${(error as Error).message}`);
  }
}

/**
 * Watches the file's folder for the file: editors and deploy tools often replace a file (write aside, rename over
 * it), which a watch of the file itself would not see past the first time. A burst of events becomes one reload,
 * 100 ms after the last.
 */
function watchFile(file: string, changed: () => void): FSWatcher | undefined {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const name = basename(file);
  try {
    return watch(dirname(resolve(file)), { persistent: false }, (_event, changedName) => {
      if (changedName !== null && changedName !== name) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(changed, 100);
    });
  } catch {
    return undefined;
  }
}
