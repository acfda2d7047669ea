import { McpkitError } from "../../jsonrpc/errors.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../jsonrpc/message.js";
import { isObject } from "../../jsonrpc/message.js";
import { LEGACY_VERSION } from "../../protocol/versions.js";
import type { NotificationSink, RequestContext } from "./context.js";
import {
  type Broadcast,
  type PluginCall,
  type PluginClientRequest,
  type PluginData,
  type PluginHost,
  type PluginIncoming,
  type PluginMethod,
  type PluginOutgoing,
  type PluginSendRequest,
  type PluginSession,
  pluginAnswerKind,
  type ServerPlugin,
} from "./plugin.js";

type Result = { [key: string]: unknown };
type AnswerHandler = NonNullable<ServerPlugin["answers"]>[string];
type ClientRequestHook = (
  request: PluginClientRequest,
  out: PluginOutgoing,
  send: PluginSendRequest,
) => Promise<Result | undefined>;

/**
 * The hooks of a server's plugins, resolved once: each is `undefined` when no plugin has it, so the dispatchers
 * skip it with one check, or one function that runs every plugin's in order.
 */
export class PluginHooks {
  readonly admit: ((call: PluginCall) => void | Promise<void>) | undefined;
  readonly context: ((call: PluginCall) => PluginData | undefined) | undefined;
  readonly response: ((response: JsonRpcResponse, call: PluginCall) => JsonRpcResponse) | undefined;
  readonly notification:
    | ((notification: JsonRpcNotification, out: PluginOutgoing) => JsonRpcNotification)
    | undefined;
  readonly clientRequest: ClientRequestHook | undefined;
  readonly broadcast: ((message: Broadcast) => Promise<void>) | undefined;
  readonly received: ((notification: JsonRpcNotification, from: PluginIncoming) => void) | undefined;
  readonly refused: ((response: JsonRpcResponse, request: JsonRpcRequest) => void) | undefined;
  readonly subscribed:
    | ((call: PluginCall, ended: Promise<"complete" | "overflow" | "cancelled">) => void)
    | undefined;
  readonly sessionOpened: ((session: PluginSession) => void) | undefined;
  readonly sessionClosed: ((session: PluginSession) => void) | undefined;
  /** True when a plugin that cannot be idle has a request hook (see {@link needsCall}). */
  private readonly busy: boolean;
  /** The plugins with request hooks that may say they are idle (`ServerPlugin.idle`). */
  private readonly idlers: readonly ServerPlugin[];
  /** True when a plugin has a hook that sees what goes to the client (notification, clientRequest). */
  readonly outgoing: boolean;
  private readonly results: readonly NonNullable<ServerPlugin["result"]>[];
  private readonly answers = new Map<string, AnswerHandler>();
  private readonly methods = new Map<string, PluginMethod>();

  constructor(readonly plugins: readonly ServerPlugin[]) {
    const names = new Set<string>();
    for (const plugin of plugins) {
      if (!isObject(plugin) || typeof plugin.name !== "string" || plugin.name === "") {
        throw invalid("plugins", "must hold objects with a non-empty string name");
      }
      if (names.has(plugin.name)) throw invalid("plugins", `hold "${plugin.name}" twice`);
      names.add(plugin.name);
      for (const [kind, handler] of Object.entries(plugin.answers ?? {})) {
        if (this.answers.has(kind)) throw invalid("plugins", `serve the answer kind "${kind}" twice`);
        this.answers.set(kind, handler);
      }
      for (const [method, serve] of Object.entries(plugin.methods?.[LEGACY_VERSION] ?? {})) {
        if (this.methods.has(method)) throw invalid("plugins", `serve ${method} twice (${LEGACY_VERSION})`);
        this.methods.set(method, serve);
      }
    }
    this.admit = chainVoid(plugins, "admit") as PluginHooks["admit"];
    this.context = contextChain(plugins);
    this.response = replacingChain(plugins.flatMap((p) => (p.response ? [p.response.bind(p)] : [])));
    this.notification = replacingChain(
      plugins.flatMap((p) => (p.notification ? [p.notification.bind(p)] : [])),
    );
    this.clientRequest = clientRequestChain(plugins);
    this.broadcast = chainVoid(plugins, "broadcast") as PluginHooks["broadcast"];
    this.received = tellEach(plugins, "received") as PluginHooks["received"];
    this.refused = tellEach(plugins, "refused") as PluginHooks["refused"];
    this.subscribed = tellEach(plugins, "subscribed") as PluginHooks["subscribed"];
    this.sessionOpened = chainVoid(plugins, "sessionOpened") as PluginHooks["sessionOpened"];
    this.sessionClosed = chainVoid(plugins, "sessionClosed") as PluginHooks["sessionClosed"];
    this.results = plugins.flatMap((p) => (p.result ? [p.result.bind(p)] : []));
    this.outgoing = this.notification !== undefined || this.clientRequest !== undefined;
    const requestHooks = plugins.filter(hasRequestHook);
    this.idlers = requestHooks.filter((p) => typeof p.idle === "function");
    this.busy = this.idlers.length < requestHooks.length;
  }

  /**
   * True when a request beginning now needs its {@link PluginCall}: some plugin has a hook that runs on every
   * request (admit, context, response, notification and clientRequest, which name the request a message belongs
   * to, and subscribed), and is not idle. False: the request runs none of them.
   */
  needsCall(): boolean {
    if (this.busy) return true;
    for (const plugin of this.idlers) if (plugin.idle?.() !== true) return true;
    return false;
  }

  /** The 2025-11-25 plugin method `method`, if a plugin serves one. */
  method(method: string): PluginMethod | undefined {
    return this.methods.size === 0 ? undefined : this.methods.get(method);
  }

  /** True when a handler's `answer` must pass through {@link settle}: a plugin answer, or `result` hooks. */
  settles(answer: unknown): boolean {
    return this.results.length > 0 || pluginAnswerKind(answer) !== undefined;
  }

  /**
   * Passes a handler's answer through the plugins: a plugin answer becomes its plugin's result (one of no
   * plugin's kind is a handler bug, sent as `-32603`), then every `result` hook runs in order.
   */
  async settle(answer: unknown, call: PluginCall, context: RequestContext): Promise<unknown> {
    const kind = pluginAnswerKind(answer);
    let out: unknown = answer;
    if (kind !== undefined) {
      const handler = this.answers.get(kind);
      if (handler === undefined) throw new Error(`no plugin of this server serves "${kind}" answers`);
      out = await handler(answer as never, call, context);
    }
    for (const result of this.results) out = await result(out, call, context);
    return out;
  }

  /**
   * `sink` with the `notification` hooks in front, for messages going out as `out` says. Only for a server
   * whose plugins have one: the dispatchers check {@link notification} first, and pass `sink` as it is.
   */
  notifying(sink: NotificationSink, out: PluginOutgoing): NotificationSink {
    const hook = this.notification as NonNullable<PluginHooks["notification"]>;
    return (notification) => sink(hook(notification, out));
  }

  /**
   * 2026-07-28: a request of an `input_required` result through the `clientRequest` hooks (only for a server
   * whose plugins have one): what the last of them sent on.
   */
  async placeRequest(request: PluginClientRequest, out: PluginOutgoing): Promise<PluginClientRequest> {
    const hook = this.clientRequest as ClientRequestHook;
    let placed = request;
    await hook(request, out, async (sent) => {
      placed = sent;
      return undefined;
    });
    return placed;
  }

  /** Calls every plugin's `setup` with `host`. */
  setup(host: PluginHost): void {
    for (const plugin of this.plugins) plugin.setup?.(host);
  }

  /** Resolves once every plugin is ready. */
  ready(): Promise<void> {
    return Promise.all(this.plugins.map((p) => p.ready?.())).then(() => {});
  }

  /** Closes the plugins, last first. */
  async close(): Promise<void> {
    for (const plugin of [...this.plugins].reverse()) await plugin.close?.();
  }
}

/** True when `plugin` has a hook that runs for each request (what {@link PluginHooks.needsCall} is about). */
function hasRequestHook(plugin: ServerPlugin): boolean {
  return (
    plugin.admit !== undefined ||
    plugin.context !== undefined ||
    plugin.response !== undefined ||
    plugin.notification !== undefined ||
    plugin.clientRequest !== undefined ||
    plugin.subscribed !== undefined
  );
}

type VoidHook = "admit" | "broadcast" | "sessionOpened" | "sessionClosed";

/** One function that runs a void hook of every plugin in order, awaiting each that returns a promise. */
function chainVoid(
  plugins: readonly ServerPlugin[],
  hook: VoidHook,
): ((arg: unknown) => void | Promise<void>) | undefined {
  const hooks = plugins.flatMap((p) => {
    const fn = p[hook] as ((arg: unknown) => void | Promise<void>) | undefined;
    return fn ? [fn.bind(p)] : [];
  });
  if (hooks.length === 0) return undefined;
  if (hooks.length === 1) return hooks[0];
  return async (arg: unknown) => {
    for (const fn of hooks) await fn(arg);
  };
}

function contextChain(plugins: readonly ServerPlugin[]): PluginHooks["context"] {
  const hooks = plugins.flatMap((p) => (p.context ? [[p.name, p.context.bind(p)] as const] : []));
  if (hooks.length === 0) return undefined;
  return (call) => {
    let data: { [plugin: string]: unknown } | undefined;
    for (const [name, fn] of hooks) {
      const value = fn(call);
      if (value === undefined) continue;
      data ??= {};
      data[name] = value;
    }
    return data;
  };
}

type TellHook = "received" | "refused" | "subscribed";

/** One function that tells every plugin's `hook` (a synchronous observer) in order; undefined when none has it. */
function tellEach(
  plugins: readonly ServerPlugin[],
  hook: TellHook,
): ((...args: never[]) => void) | undefined {
  const hooks = plugins.flatMap((p) => {
    const fn = p[hook] as ((...args: never[]) => void) | undefined;
    return fn ? [fn.bind(p)] : [];
  });
  if (hooks.length === 0) return undefined;
  if (hooks.length === 1) return hooks[0];
  return (...args) => {
    for (const fn of hooks) fn(...args);
  };
}

/** The `clientRequest` hooks nested: the first plugin's wraps the second's, the last one's wraps the sending. */
function clientRequestChain(plugins: readonly ServerPlugin[]): ClientRequestHook | undefined {
  const hooks = plugins.flatMap((p) => (p.clientRequest ? [p.clientRequest.bind(p)] : []));
  if (hooks.length === 0) return undefined;
  return (request, out, send) => {
    const step = (at: number, next: PluginClientRequest): Promise<Result | undefined> => {
      const hook = hooks[at];
      return hook === undefined ? send(next) : hook(next, out, (more) => step(at + 1, more));
    };
    return step(0, request);
  };
}

/** Hooks that may each replace a value (returning nothing keeps it), in order; undefined when there are none. */
function replacingChain<V, A>(
  hooks: ReadonlyArray<(value: V, arg: A) => V | undefined>,
): ((value: V, arg: A) => V) | undefined {
  if (hooks.length === 0) return undefined;
  return (value, arg) => {
    let out = value;
    for (const fn of hooks) out = fn(out, arg) ?? out;
    return out;
  };
}

function invalid(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `server option ${key} ${problem}`, { details: { key } });
}

/** Result shape check shared by the dispatchers for what a plugin method returns. */
export function pluginResult(value: unknown, method: string): Result {
  if (!isObject(value)) throw new Error(`the plugin method ${method} must return an object`);
  return value;
}
