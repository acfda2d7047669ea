import { McpkitError, type ServerNotification } from "../client/index.js";
import { limitError } from "../jsonrpc/limit-error.js";
import type { SubscriptionFilter } from "../protocol/types/index.js";
import type { CliArgs } from "./args.js";
import { ExitCode, type ExitStatus, UsageError } from "./exit-codes.js";
import type { Output } from "./io.js";
import { logLine, type Session } from "./session.js";
import { safe } from "./table.js";

/** How long one wait for the next event lasts before waiting again (the wait itself is unbounded). */
const POLL_MS = 3_600_000;

/**
 * `listen`: prints one line per server notification until Ctrl-C. 2026-07-28 opens a `subscriptions/listen`
 * for every list change and the `--uri` resources; 2025-11-25 subscribes to the `--uri` resources and prints
 * what arrives on the session. Log messages (with `--log-level`) are printed too.
 */
export async function listen(session: Session, args: CliArgs, out: Output): Promise<ExitStatus> {
  const print = (notification: ServerNotification) => out.line(notification, describe(notification));
  session.onNotification = print;
  session.onLog = (params) =>
    out.line({ method: "notifications/message", params }, `${time()} ${logLine(params)}`);
  return session.info.era === "2026-07-28"
    ? listenModern(session, args, out, print)
    : listenLegacy(session, args, out);
}

async function listenModern(
  session: Session,
  args: CliArgs,
  out: Output,
  print: (notification: ServerNotification) => void,
): Promise<ExitStatus> {
  const filter: SubscriptionFilter = {
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
    ...(args.uris.length > 0 ? { resourceSubscriptions: args.uris } : {}),
  };
  const sub = await session.client.listenSubscriptions(filter, { signal: out.io.interrupt });
  for (;;) {
    const event = await sub.next(POLL_MS);
    if (event.type === "timeout") continue;
    if (event.type === "acknowledged") {
      if (out.json) out.line({ acknowledged: event.notifications }, "");
      else out.note(`listening for ${honoured(event.notifications)} (Ctrl-C to stop)`);
      continue;
    }
    if (event.type === "notification") {
      print(event.notification);
      continue;
    }
    if (event.type === "interrupted") {
      const why = event.error instanceof Error ? event.error.message : String(event.error);
      if (out.json)
        out.line({ interrupted: { reason: why, attempt: event.attempt, delayMs: event.delayMs } }, "");
      else out.note(`mcpkit: the listen stream was lost (${why}); listening again in ${event.delayMs} ms`);
      continue;
    }
    const { end } = event;
    switch (end.reason) {
      case "closed":
      case "client_closed":
        return ExitCode.OK;
      case "completed":
      case "server_cancelled":
        out.note("mcpkit: the server ended the subscription");
        return ExitCode.OK;
      case "error":
      case "protocol":
        throw end.error;
      case "transport_closed":
        throw new McpkitError("TRANSPORT", "the connection ended", {
          details: { reason: "connection_lost" },
        });
      case "queue_overflow":
        // The CLI reads each event as it comes: only a stalled output lets the client's queue fill.
        throw limitError(
          "CAPACITY",
          "the subscription fell behind (the output was not read)",
          { option: "subscriptionQueueSize", limit: end.queueSize, size: end.queueSize + 1 },
          { unit: "events" },
        );
    }
  }
}

async function listenLegacy(session: Session, args: CliArgs, out: Output): Promise<ExitStatus> {
  const { client, info } = session;
  if (args.uris.length > 0 && info.capabilities.resources?.subscribe !== true) {
    throw new UsageError("the server does not offer resource subscriptions (--uri)");
  }
  for (const uri of args.uris) await client.subscribeResource(uri, { signal: out.io.interrupt });
  if (out.json) out.line({ acknowledged: { resourceSubscriptions: args.uris } }, "");
  else
    out.note(
      `listening for notifications${args.uris.length > 0 ? ` and updates of ${args.uris.map(safe).join(", ")}` : ""} (Ctrl-C to stop)`,
    );
  const interrupted = new Promise<"interrupt">((resolve) => {
    if (out.io.interrupt.aborted) resolve("interrupt");
    out.io.interrupt.addEventListener("abort", () => resolve("interrupt"), { once: true });
  });
  const outcome = await Promise.race([interrupted, session.closed]);
  if (outcome === "interrupt") return ExitCode.OK;
  throw new McpkitError("TRANSPORT", "the connection ended", { details: { reason: "connection_lost" } });
}

function honoured(filter: SubscriptionFilter): string {
  const lists = (["tools", "prompts", "resources"] as const).filter(
    (family) => filter[`${family}ListChanged`] === true,
  );
  const parts = lists.length > 0 ? [`${lists.join(", ")} list changes`] : [];
  if ((filter.resourceSubscriptions ?? []).length > 0) {
    parts.push(`updates of ${(filter.resourceSubscriptions ?? []).map(safe).join(", ")}`);
  }
  return parts.length > 0
    ? parts.join(" and ")
    : "nothing: the server offers no list changes or resource updates";
}

/** `12:00:01.250 notifications/resources/updated uri=file:///a` */
function describe(notification: ServerNotification): string {
  const { _meta, ...params } = (notification.params ?? {}) as { [key: string]: unknown };
  const uri = typeof params.uri === "string" && Object.keys(params).length === 1 ? ` uri=${params.uri}` : "";
  const rest = uri === "" && Object.keys(params).length > 0 ? ` ${JSON.stringify(params)}` : "";
  return safe(`${time()} ${notification.method}${uri}${rest}`);
}

function time(): string {
  return new Date().toISOString().slice(11, 23);
}
