import { uiClientCapability } from "../../apps/index.js";
import { Client, type ConnectionInfo, type Root } from "../../client/index.js";
import type { HttpAuthProvider } from "../../http/index.js";
import type { LoggingLevel } from "../../protocol/types/common.js";
import type { CreateMessageResult, ElicitResult } from "../../protocol/types/index.js";
import { TASKS_EXTENSION } from "../../protocol/types/tasks.js";
import type { Era } from "../../protocol/versions.js";
import type { Transport } from "../../transports/transport.js";
import type { CliArgs } from "../args.js";
import { CLI_INFO } from "../session.js";
import { tapTransport } from "../tap-transport.js";
import { type OpenedTarget, openTarget } from "../target.js";
import type { Dialogs } from "./dialogs.js";
import { type EventHub, wireEntry } from "./events.js";

/** Most roots the page may configure. */
export const MAX_ROOTS = 64;

/**
 * The inspector's one connection to the target fixed on the command line. The page may reconnect it (with the
 * era pinned or auto) but never point it elsewhere: there is no operation that takes a URL or a command.
 */
export class InspectorConnection {
  client: Client | undefined;
  info: ConnectionInfo | undefined;
  /** The era asked for: undefined for auto (2026-07-28, falling back). */
  era: Era | undefined;
  roots: Root[] = [];
  /** The log level asked for: 2025 sends logging/setLevel; 2026 carries it on every request (a client option). */
  logLevel: LoggingLevel | undefined;
  private opened: OpenedTarget | undefined;
  private generation = 0;

  constructor(
    readonly args: CliArgs,
    private readonly events: EventHub,
    private readonly dialogs: Dialogs,
    private readonly authProvider?: HttpAuthProvider,
  ) {
    this.era = args.era;
    this.logLevel = args.logLevel;
  }

  /** (Re)connects to the target, closing the previous connection first. */
  async connect(era: Era | undefined): Promise<ConnectionInfo> {
    await this.close();
    this.era = era;
    const generation = ++this.generation;
    this.events.publish("connection", { state: "connecting", era: era ?? "auto" }, "connection");
    const opened = openTarget({ ...this.args, era }, this.authProvider);
    this.opened = opened;
    const client = new Client({
      transport: this.tap(opened.transport, generation),
      clientInfo: { name: "mcpkit-inspect", version: CLI_INFO.version },
      capabilities: {
        // tools: a sampling request may offer tools; the user answers it (a tool_use reply is written as JSON).
        sampling: { tools: {} },
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true },
        extensions: { [TASKS_EXTENSION]: {}, ...uiClientCapability() },
      },
      ...(era === undefined ? {} : { protocolVersion: era }),
      ...(this.logLevel === undefined ? {} : { logLevel: this.logLevel }),
      versionFallback: this.args.fallback,
      requestTimeoutMs: this.args.timeoutMs,
      connectTimeoutMs: this.args.timeoutMs,
      // The user answers dialogs: give them the operation's whole deadline.
      callbackTimeoutMs: this.args.timeoutMs,
      onElicitation: (params, context) =>
        this.dialogs.ask("elicitation", params, context.signal) as Promise<ElicitResult>,
      onSampling: (params, context) =>
        this.dialogs.ask("sampling", params, context.signal) as Promise<CreateMessageResult>,
      onRoots: () => ({ roots: this.roots }),
      onNotification: (notification) => this.events.publish("notification", notification),
      onLog: (params) => this.events.publish("notification", { method: "notifications/message", params }),
      logger: { warn: (message) => this.events.publish("warning", { message }) },
    });
    this.client = client;
    try {
      const info = await client.connect();
      if (generation !== this.generation) return info;
      if (
        this.logLevel !== undefined &&
        info.era === "2025-11-25" &&
        info.capabilities.logging !== undefined
      ) {
        await client.setLoggingLevel(this.logLevel);
      }
      this.info = info;
      this.events.publish("connection", { state: "connected", info }, "connection");
      return info;
    } catch (error) {
      if (generation === this.generation) {
        this.client = undefined;
        this.events.publish(
          "connection",
          {
            state: "failed",
            error: error instanceof Error ? error.message : String(error),
            ...stderrOf(opened),
            exit: opened.exitNote(),
          },
          "connection",
        );
      }
      await client.close().catch(() => {});
      throw error;
    }
  }

  /** The connected client, or `CLOSED` when there is none. */
  connected(): Client {
    if (this.client === undefined) throw new Error("not connected: press Connect");
    return this.client;
  }

  async setRoots(roots: Root[]): Promise<void> {
    if (roots.length > MAX_ROOTS) throw new Error(`at most ${MAX_ROOTS} roots`);
    this.roots = roots;
    await this.client?.sendRootsListChanged().catch(() => {});
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.info = undefined;
    this.generation++;
    if (client !== undefined) {
      await client.close().catch(() => {});
      this.events.publish("connection", { state: "closed" }, "connection");
    }
    this.opened = undefined;
  }

  /** Logs every JSON-RPC message both ways, and reports the end of the connection. */
  private tap(transport: Transport, generation: number): Transport {
    const events = this.events;
    return tapTransport(transport, {
      received: (message) => events.publish("wire", wireEntry("in", message)),
      sent: (message) => events.publish("wire", wireEntry("out", message)),
      closed: (reason) => {
        // Before the connection was made, connect() reports the failure (with the stderr) instead.
        if (generation === this.generation && this.info !== undefined) {
          events.publish(
            "connection",
            {
              state: "closed",
              reason: reason.kind,
              ...(reason.error === undefined ? {} : { error: reason.error.message }),
              ...stderrOf(this.opened),
              exit: this.opened?.exitNote(),
            },
            "connection",
          );
        }
      },
    });
  }
}

/** The last lines of a program's stderr, for the page (none for HTTP, or when it wrote nothing). */
function stderrOf(opened: OpenedTarget | undefined): { stderr?: string } {
  const tail = opened?.stderrTail().trimEnd() ?? "";
  return tail === "" ? {} : { stderr: tail.split(/\r?\n/).slice(-10).join("\n") };
}
