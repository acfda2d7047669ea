import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseGatewayConfig } from "../gateway/index.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { ExitCode, type ExitStatus } from "./exit-codes.js";
import { oauthUpstreams, preRegistered, secretOf } from "./gateway-auth.js";
import type { CliIo } from "./io.js";
import { safe } from "./table.js";

/** The text of `mcpkit gateway login --help`. */
export const GATEWAY_LOGIN_USAGE = `mcpkit gateway login: log in to an upstream of the gateway, once, from this terminal

Usage:
  mcpkit gateway login --config FILE UPSTREAM

For an HTTP upstream whose "oauth" has "grant": "authorization_code": prints the authorization URL on stderr,
waits for the browser's redirect on 127.0.0.1 (the upstream's "redirectPort", default any free port), and keeps
the tokens in the upstream's file of the gateway's token directory (mode 0600). A running gateway uses them
(after its next retry of that upstream) and refreshes them.

Flags:
  --config FILE      the gateway's config file (required)
  --timeout-ms MS    how long to wait for the browser (default 300000)
  -h, --help         this text
`;

/**
 * Runs `mcpkit gateway login --config FILE UPSTREAM`: the authorization code flow with PKCE for one upstream,
 * through a loopback redirect, its tokens kept in that upstream's token file.
 *
 * @example
 * const status = await runGatewayLogin(["--config", "gateway.json", "notes"], io);
 */
export async function runGatewayLogin(argv: readonly string[], io: CliIo): Promise<ExitStatus> {
  const say = (text: string) => io.stderr.write(`mcpkit gateway login: ${text}\n`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    say(`${(error as Error).message.split("\n")[0]}\n${GATEWAY_LOGIN_USAGE}`);
    return ExitCode.USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(GATEWAY_LOGIN_USAGE);
    return ExitCode.OK;
  }
  const file = values.config;
  const name = positionals[0];
  const timeoutMs = values["timeout-ms"] === undefined ? 300_000 : Number(values["timeout-ms"]);
  if (file === undefined || name === undefined || positionals.length > 1 || !(timeoutMs > 0)) {
    say(`--config FILE and one UPSTREAM are required\n${GATEWAY_LOGIN_USAGE}`);
    return ExitCode.USAGE;
  }
  let entry: ReturnType<typeof oauthUpstreams>[number] | undefined;
  let secret: string | undefined;
  try {
    const config = parseGatewayConfig(JSON.parse(readFileSync(file, "utf8")));
    entry = oauthUpstreams(config, file).find((u) => u.name === name);
    if (entry?.oauth.grant !== "authorization_code") {
      say(`${file}: mcpServers.${name} is no HTTP upstream with "oauth": { "grant": "authorization_code" }`);
      return ExitCode.USAGE;
    }
    secret = secretOf(entry, process.env);
  } catch (error) {
    say(`${file}: ${(error as Error).message}`);
    return error instanceof McpkitError || error instanceof SyntaxError ? ExitCode.USAGE : ExitCode.INTERNAL;
  }
  const [{ OAuthClient }, { FileCredentialStore, startLoopbackRedirect }] = await Promise.all([
    import("../auth/index.js"),
    import("../auth-node/index.js"),
  ]);
  const loopback = await startLoopbackRedirect({ port: entry.oauth.redirectPort, timeoutMs });
  try {
    const oauth = new OAuthClient({
      redirectUri: loopback.redirectUri,
      clientName: "mcpkit-gateway",
      clients: preRegistered(entry.oauth, secret),
      store: new FileCredentialStore(entry.tokenFile),
      ...(entry.oauth.scopes === undefined ? {} : { scopes: [...entry.oauth.scopes] }),
      onAuthorizationUrl: (url) => {
        say(`log in to "${name}" by opening this URL in a browser:\n  ${safe(url.href)}`);
        return loopback.next();
      },
    });
    const result = await oauth.authorize(entry.url);
    if (result.status !== "authorized") {
      say(`the login to "${name}" did not finish`);
      return ExitCode.CONNECTION;
    }
    say(`logged in to "${name}"; its tokens are kept in ${entry.tokenFile}`);
    return ExitCode.OK;
  } catch (error) {
    say(`the login to "${name}" failed: ${(error as Error).message}`);
    return ExitCode.CONNECTION;
  } finally {
    await loopback.close();
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      config: { type: "string" },
      "timeout-ms": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
