import { randomBytes } from "node:crypto";
import { appSandbox, resolveApp } from "../../apps/index.js";
import {
  type Client,
  type ClientTask,
  callToolAsTask,
  cancelTask,
  getTask,
  isCreateTaskResult,
  type Subscription,
  toClientTask,
  waitForTask,
} from "../../client/index.js";
import { LOGGING_LEVELS, type LoggingLevel } from "../../protocol/types/common.js";
import type { CompleteParams, Tool } from "../../protocol/types/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import { type InspectorConnection, MAX_ROOTS } from "./connection.js";
import type { Dialogs } from "./dialogs.js";
import type { EventHub } from "./events.js";

/** Most tool calls running at once from the page. */
export const MAX_RUNNING_CALLS = 64;
/** Most App views resolved but not yet loaded by their iframe. */
export const MAX_PENDING_VIEWS = 16;
/** Most resources subscribed to at once. */
export const MAX_SUBSCRIPTIONS = 256;
/** Most pages the inspector follows (`nextCursor`) of one list: tools, resources, templates or prompts. */
export const MAX_LIST_PAGES = 1_000;
/** Most items the inspector takes of one list (the page windows them: only the rows in view are drawn). */
export const MAX_LIST_ITEMS = 100_000;
const LIST_BOUNDS = { maxPages: MAX_LIST_PAGES, maxItems: MAX_LIST_ITEMS };
/** Largest App view the inspector reads (real views are single bundled documents of several MB). */
const VIEW_BYTES = 8_000_000;

/** A request the page made that is wrong in itself (400), as opposed to an error of the server (200 + error). */
export class BadRequest extends Error {}

type Params = { [key: string]: unknown };

/** A view resolved for an iframe: its HTML and the CSP it is served under, fetched once by its random id. */
export interface PendingView {
  html: string;
  csp: string;
}

const str = (params: Params, key: string): string => {
  const value = params[key];
  if (typeof value !== "string") throw new BadRequest(`${key} must be a string`);
  return value;
};
const obj = (params: Params, key: string): Params => {
  const value = params[key] ?? {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadRequest(`${key} must be an object`);
  }
  return value as Params;
};

/**
 * The inspector's operations, one per page action. Each acts on the one connection to the fixed target: none
 * takes a URL to reach or a command to run.
 */
export class InspectorApi {
  private readonly calls = new Map<string, AbortController>();
  private readonly views = new Map<string, PendingView>();
  private readonly subscribed = new Set<string>();
  private subscription: Subscription | undefined;
  private tools: Tool[] = [];
  private readonly tasks = new Map<string, AbortController>();

  constructor(
    private readonly connection: InspectorConnection,
    private readonly events: EventHub,
    private readonly dialogs: Dialogs,
  ) {}

  /** Takes the view `id` for its iframe (once). */
  takeView(id: string): PendingView | undefined {
    const view = this.views.get(id);
    this.views.delete(id);
    return view;
  }

  /** Runs one operation. */
  async run(op: string, params: Params): Promise<unknown> {
    const handler = this.ops[op];
    if (handler === undefined) throw new BadRequest(`unknown operation "${op}"`);
    return handler(params);
  }

  private client(): Client {
    return this.connection.connected();
  }

  private readonly ops: { [op: string]: (params: Params) => Promise<unknown> } = {
    state: async () => ({
      target: describeTarget(this.connection.args),
      era: this.connection.era ?? "auto",
      info: this.connection.info,
      roots: this.connection.roots,
      subscribed: [...this.subscribed],
    }),
    connect: async (params) => {
      const era = params.era;
      if (era !== "auto" && era !== LEGACY_VERSION && era !== MODERN_VERSION) {
        throw new BadRequest(`era must be auto, ${LEGACY_VERSION} or ${MODERN_VERSION}`);
      }
      this.endCalls();
      this.subscribed.clear();
      this.subscription = undefined;
      return this.connection.connect(era === "auto" ? undefined : era);
    },
    "tools/list": async () => {
      const client = this.client();
      this.tools =
        client.serverCapabilities?.tools === undefined ? [] : await client.listAllTools(LIST_BOUNDS);
      return { tools: this.tools };
    },
    "tools/call": (params) => this.callTool(params),
    cancel: async (params) => {
      this.calls.get(str(params, "callId"))?.abort(new Error("cancelled by the user"));
      return {};
    },
    "tasks/get": async (params) => getTask(this.client(), str(params, "taskId")),
    "tasks/cancel": async (params) => {
      const taskId = str(params, "taskId");
      await cancelTask(this.client(), taskId);
      return getTask(this.client(), taskId);
    },
    "resources/list": async () => {
      const client = this.client();
      return {
        resources:
          client.serverCapabilities?.resources === undefined
            ? []
            : await client.listAllResources(LIST_BOUNDS),
      };
    },
    "resources/templates/list": async () => {
      const client = this.client();
      if (client.serverCapabilities?.resources === undefined) return { resourceTemplates: [] };
      return { resourceTemplates: await client.listAllResourceTemplates(LIST_BOUNDS) };
    },
    "resources/read": async (params) => this.client().readResource(str(params, "uri")),
    "resources/subscribe": async (params) => this.subscribe(str(params, "uri"), true),
    "resources/unsubscribe": async (params) => this.subscribe(str(params, "uri"), false),
    "prompts/list": async () => {
      const client = this.client();
      return {
        prompts:
          client.serverCapabilities?.prompts === undefined ? [] : await client.listAllPrompts(LIST_BOUNDS),
      };
    },
    "prompts/get": async (params) => {
      const args = obj(params, "arguments");
      for (const [key, value] of Object.entries(args)) {
        if (typeof value !== "string") throw new BadRequest(`prompt argument ${key} must be a string`);
      }
      return this.client().getPrompt(str(params, "name"), args as { [key: string]: string });
    },
    complete: async (params) => this.client().complete(obj(params, "params") as unknown as CompleteParams),
    "logging/setLevel": async (params) => {
      const level = str(params, "level");
      if (!(LOGGING_LEVELS as readonly string[]).includes(level)) throw new BadRequest("unknown level");
      this.connection.logLevel = level as LoggingLevel;
      const client = this.client();
      if (client.era === LEGACY_VERSION) return client.setLoggingLevel(level as LoggingLevel);
      // 2026-07-28: the level rides on every request, a client option: reconnect with it.
      this.endCalls();
      this.subscribed.clear();
      this.subscription = undefined;
      return this.connection.connect(this.connection.era);
    },
    "app/open": (params) => this.openApp(str(params, "name")),
    "skills/list": async () => {
      const skills = await skillsOf(this.client());
      if (!skills.supported) return { supported: false, skills: [] };
      return { supported: true, ...(await skills.listAll()) };
    },
    "skills/load": (params) => this.loadSkill(str(params, "uri")),
    "dialog/answer": async (params) => {
      const id = str(params, "id");
      if (params.reject === true) return { answered: this.dialogs.reject(id) };
      return { answered: this.dialogs.answer(id, params.result) };
    },
    "roots/set": async (params) => {
      const roots = params.roots;
      if (!Array.isArray(roots)) throw new BadRequest("roots must be an array");
      if (roots.length > MAX_ROOTS) throw new BadRequest(`at most ${MAX_ROOTS} roots`);
      for (const root of roots) {
        const uri = (root as Params | null)?.uri;
        if (typeof uri !== "string" || !uri.startsWith("file://")) {
          throw new BadRequest("each root needs a file:// uri");
        }
      }
      await this.connection.setRoots(roots as { uri: string; name?: string }[]);
      return { roots: this.connection.roots };
    },
  };

  private async callTool(params: Params): Promise<unknown> {
    const client = this.client();
    const callId = str(params, "callId");
    const name = str(params, "name");
    const args = obj(params, "arguments");
    if (this.calls.size >= MAX_RUNNING_CALLS)
      throw new BadRequest(`more than ${MAX_RUNNING_CALLS} calls are running`);
    if (this.calls.has(callId)) throw new BadRequest("callId is in use");
    const controller = new AbortController();
    this.calls.set(callId, controller);
    const signal = controller.signal;
    const onProgress = (progress: unknown) =>
      this.events.publish("progress", { callId, ...(progress as Params) });
    try {
      if (params.task === true) {
        const { task, result } = await callToolAsTask(client, name, args, { signal, onProgress });
        if (task === undefined) return { result };
        this.followTask(client, task);
        return { task };
      }
      const result = await client.callTool(name, args, { signal, onProgress });
      // A 2026 server may answer a plain call with a task.
      if (isCreateTaskResult(result)) {
        const task = toClientTask(result);
        this.followTask(client, task);
        return { task };
      }
      return { result };
    } finally {
      this.calls.delete(callId);
    }
  }

  /** Polls a task to its end, publishing each status (`task`) and its outcome; `tasks/cancel` from the page. */
  private followTask(client: Client, task: ClientTask): void {
    const controller = new AbortController();
    this.tasks.set(task.taskId, controller);
    this.events.publish("task", task);
    waitForTask(client, task, {
      signal: controller.signal,
      maxPollMs: 1_000,
      onStatus: (status) => this.events.publish("task", status),
    })
      .then(
        (result) => this.events.publish("task", { ...task, status: "completed", result }),
        async (error: unknown) => {
          // A task that ended cancelled or failed is reported as the server has it; only what it cannot say is an error.
          const final = await getTask(client, task.taskId).catch(() => undefined);
          if (final !== undefined && final.status !== "working" && final.status !== "input_required") {
            this.events.publish("task", final);
            return;
          }
          this.events.publish("task-error", {
            taskId: task.taskId,
            error: error instanceof Error ? error.message : String(error),
            code: (error as { code?: unknown }).code,
          });
        },
      )
      .finally(() => {
        this.tasks.delete(task.taskId);
        // No more updates of this task will come.
        this.events.publish("task-settled", { taskId: task.taskId });
      });
  }

  private async subscribe(uri: string, on: boolean): Promise<unknown> {
    const client = this.client();
    if (on && !this.subscribed.has(uri) && this.subscribed.size >= MAX_SUBSCRIPTIONS) {
      throw new BadRequest(`at most ${MAX_SUBSCRIPTIONS} subscriptions`);
    }
    if (client.era === LEGACY_VERSION) {
      if (on) await client.subscribeResource(uri);
      else await client.unsubscribeResource(uri);
      if (on) this.subscribed.add(uri);
      else this.subscribed.delete(uri);
      return { subscribed: [...this.subscribed] };
    }
    const next = new Set(this.subscribed);
    if (on) next.add(uri);
    else next.delete(uri);
    // 2026: one listen for the list changes and every subscribed resource, reopened with the new set.
    const previous = this.subscription;
    this.subscription = undefined;
    await previous?.close().catch(() => {});
    this.subscribed.clear();
    for (const u of next) this.subscribed.add(u);
    const sub = await client.listenSubscriptions({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: [...next],
    });
    this.subscription = sub;
    const first = await sub.next();
    const honored = first.type === "acknowledged" ? first.notifications : undefined;
    void this.pump(sub);
    return { subscribed: [...this.subscribed], honored };
  }

  private async pump(sub: Subscription): Promise<void> {
    for (;;) {
      const event = await sub.next(3_600_000);
      if (event.type === "notification") this.events.publish("notification", event.notification);
      else if (event.type === "end") {
        if (
          this.subscription === sub &&
          event.end.reason !== "closed" &&
          event.end.reason !== "client_closed"
        ) {
          this.events.publish("warning", { message: `the subscription ended: ${event.end.reason}` });
        }
        return;
      }
    }
  }

  private async openApp(name: string): Promise<unknown> {
    const client = this.client();
    if (this.tools.length === 0) this.tools = await client.listAllTools(LIST_BOUNDS);
    const tool = this.tools.find((t) => t.name === name);
    if (tool === undefined) throw new BadRequest(`no tool "${name}"`);
    const app = await resolveApp(client, tool, { limits: { resourceBytes: VIEW_BYTES } });
    const box = appSandbox(app.ui);
    if (this.views.size >= MAX_PENDING_VIEWS) {
      const oldest = this.views.keys().next().value;
      if (oldest !== undefined) this.views.delete(oldest);
    }
    const viewId = randomBytes(24).toString("base64url");
    this.views.set(viewId, { html: app.html, csp: box.csp });
    return { viewId, sandbox: box.sandbox, allow: box.allow, applied: box.applied, tools: this.tools };
  }

  private async loadSkill(uri: string): Promise<unknown> {
    const skills = await skillsOf(this.client());
    const { skill: entry } = await skills.get(uri);
    const refs = entry.resources === "dynamic" ? [] : entry.resources.map((r) => r.uri);
    const files: Params[] = [];
    for (const ref of [undefined, ...refs.filter((r) => r !== entry.uri)]) {
      try {
        const file = await skills.readFile(entry, ref);
        files.push({
          uri: file.uri,
          verified: file.verified,
          mimeType: file.mimeType,
          size: file.bytes.length,
          ...(file.text === undefined ? {} : { text: file.text.slice(0, 200_000) }),
        });
      } catch (error) {
        files.push({
          uri: ref ?? entry.uri,
          verified: false,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return { entry, files };
  }

  /** Cancels every running call and task poll (reconnect, exit). */
  endCalls(): void {
    for (const controller of this.calls.values()) controller.abort(new Error("the connection was reset"));
    for (const controller of this.tasks.values()) controller.abort(new Error("the connection was reset"));
    this.calls.clear();
    this.tasks.clear();
  }
}

/** The Skills client, loaded on first use (it brings the YAML parser, which no other command needs). */
async function skillsOf(client: Client) {
  const { SkillsClient } = await import("../../skills/index.js");
  return new SkillsClient(client);
}

/** The target as the page shows it and as `mcpkit` takes it on a command line. */
export function describeTarget(args: InspectorConnection["args"]): { kind: string; argv: string[] } {
  const { target } = args;
  return target.kind === "http"
    ? { kind: "http", argv: [target.url] }
    : { kind: "stdio", argv: ["--", target.command, ...target.args] };
}
