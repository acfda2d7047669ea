import { homedir } from "node:os";
import { join } from "node:path";
import { env } from "node:process";
import type { HttpAuthProvider } from "../http/index.js";
import type { CliArgs } from "./args.js";
import type { Output } from "./io.js";
import { safe } from "./table.js";

/** What `--login` adds to an HTTP target: the OAuth provider, and the redirect listener to stop afterwards. */
export interface CliLogin {
  provider: HttpAuthProvider;
  close(): Promise<void>;
}

/** mcpkit's folder of the user's config: `$XDG_CONFIG_HOME/mcpkit`, else `~/.config/mcpkit`. */
export function mcpkitConfigHome(): string {
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ""
      ? env.XDG_CONFIG_HOME
      : join(homedir(), ".config");
  return join(base, "mcpkit");
}

/** Where `--login` keeps credentials without `--credentials`: `credentials.json` in {@link mcpkitConfigHome}. */
export function defaultCredentialsPath(): string {
  return join(mcpkitConfigHome(), "credentials.json");
}

/**
 * The OAuth client for `--login`: logs in when the server answers 401 (discovery, registration, PKCE), printing
 * the authorization URL on stderr and waiting for the browser's redirect on a 127.0.0.1 listener; tokens and
 * registrations go to a file (mode 0600), so the next run reuses or refreshes them without a login. mcpkit/auth
 * is loaded only here, so runs without `--login` never load the OAuth library.
 *
 * @example
 * const login = await startCliLogin(args, out);
 * const { transport } = openTarget(args, login.provider);
 */
export async function startCliLogin(
  args: CliArgs,
  out: Output,
  /** Shows the URL instead of printing it (`inspect`); throwing refuses it. */
  present?: (url: URL) => void,
  clientName = "mcpkit-cli",
): Promise<CliLogin> {
  const [{ OAuthClient }, { FileCredentialStore, startLoopbackRedirect }] = await Promise.all([
    import("../auth/index.js"),
    import("../auth-node/index.js"),
  ]);
  const loopback = await startLoopbackRedirect({ timeoutMs: args.timeoutMs });
  const provider = new OAuthClient({
    redirectUri: loopback.redirectUri,
    clientName,
    store: new FileCredentialStore(args.credentials ?? defaultCredentialsPath()),
    allowHttp: args.allowHttp,
    onAuthorizationUrl: (url) => {
      if (present !== undefined) present(url);
      else out.stderrLine(`mcpkit: log in by opening this URL in a browser:\n  ${safe(url.href)}`);
      return loopback.next();
    },
  });
  return { provider, close: () => loopback.close() };
}
