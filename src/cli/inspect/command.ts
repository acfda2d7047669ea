import { readFile } from "node:fs/promises";
import { responseProblem } from "../../client/input-answerer.js";
import type { HttpAuthProvider } from "../../http/index.js";
import type { CliArgs } from "../args.js";
import { ExitCode, type ExitStatus, UsageError } from "../exit-codes.js";
import type { Output } from "../io.js";
import { safe } from "../table.js";
import { InspectorApi } from "./api.js";
import { InspectorConnection } from "./connection.js";
import { Dialogs } from "./dialogs.js";
import { EventHub } from "./events.js";
import { startInspectorServer } from "./http-server.js";
import { browsableUrl, openInBrowser } from "./open-url.js";

/**
 * `mcpkit inspect <target>`: serves the inspector page on 127.0.0.1, prints its URL (with its token) as the
 * first line on stdout, opens it unless `--no-open`, connects to the target, and runs until Ctrl-C.
 */
export async function inspectCommand(
  args: CliArgs,
  out: Output,
  assets: URL,
  login: LoginStarter,
): Promise<ExitStatus> {
  const events = new EventHub();
  const samplingDraft = args.samplingReply === undefined ? undefined : await readDraft(args.samplingReply);
  const dialogs = new Dialogs(events, samplingDraft === undefined ? {} : { samplingDraft });
  const loggedIn = args.login ? await startLogin(args, out, events, login) : undefined;
  const connection = new InspectorConnection(args, events, dialogs, loggedIn?.provider);
  const api = new InspectorApi(connection, events, dialogs);
  const server = await startInspectorServer({ port: args.port, api, events, assets: { dir: assets } }).catch(
    async (error: unknown) => {
      await loggedIn?.close().catch(() => {});
      throw error;
    },
  );
  try {
    out.io.stdout.write(`${server.url}\n`);
    out.note("mcpkit: the inspector runs until Ctrl-C; the URL carries its token, keep it to yourself");
    if (args.open) openInBrowser(server.url);
    // In the background: Ctrl-C ends the inspector even while it connects (or waits for a login).
    connection.connect(args.era).catch((error: unknown) => {
      out.note(`mcpkit: could not connect: ${safe(error instanceof Error ? error.message : String(error))}`);
    });
    await new Promise<void>((resolve) => {
      if (out.io.interrupt.aborted) return resolve();
      out.io.interrupt.addEventListener("abort", () => resolve(), { once: true });
    });
    return ExitCode.OK;
  } finally {
    api.endCalls();
    dialogs.closeAll();
    await connection.close();
    await server.close();
    await loggedIn?.close().catch(() => {});
  }
}

/** `--sampling-reply FILE`: a CreateMessageResult as JSON, checked as the client checks a reply; else a usage error. */
async function readDraft(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`--sampling-reply: cannot read ${file}: ${(error as Error).message}`);
  }
  let draft: unknown;
  try {
    draft = JSON.parse(text);
  } catch {
    throw new UsageError(`--sampling-reply: ${file} is not JSON`);
  }
  const problem = responseProblem("sampling/createMessage", draft);
  if (problem !== undefined)
    throw new UsageError(`--sampling-reply: ${file} is not a CreateMessageResult: ${problem}`);
  return draft;
}

/** The CLI's `--login` starter, passed in by the command runner (so this module does not load it). */
export type LoginStarter = (
  args: CliArgs,
  out: Output,
  present: (url: URL) => void,
  clientName: string,
) => Promise<{ provider: HttpAuthProvider; close(): Promise<void> }>;

/**
 * `--login`: how an authorization URL reaches the user. Only an https (or loopback http) URL without userinfo is
 * printed in the terminal, shown to the page and opened (with an argv, never a shell); any other is refused, and
 * the login fails.
 */
export function authorizationUrlPresenter(
  args: Pick<CliArgs, "open">,
  out: Output,
  events: EventHub,
  open: (url: string) => unknown = openInBrowser,
): (url: URL) => void {
  return (url) => {
    const checked = browsableUrl(url.href);
    if (checked === undefined) {
      out.stderrLine(`mcpkit: refused an authorization URL that is not https: ${safe(url.href)}`);
      events.publish("auth", { refused: true });
      throw new Error("the authorization URL is not https (or loopback http)");
    }
    out.stderrLine(`mcpkit: log in by opening this URL in a browser:\n  ${safe(checked)}`);
    events.publish("auth", { url: checked });
    if (args.open) open(checked);
  };
}

function startLogin(args: CliArgs, out: Output, events: EventHub, login: LoginStarter) {
  return login(args, out, authorizationUrlPresenter(args, out, events), "mcpkit-inspect");
}
