import { isObject } from "../../jsonrpc/message.js";
import type { InputRequests } from "../../protocol/types/input.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import type { ClusterBus } from "../cluster/cluster.js";
import type { RequestContext } from "../core/context.js";
import type { ServerLogger } from "../core/options.js";
import type { PluginCall, PluginHost, PluginMethod, PluginMethodCall, ServerPlugin } from "../core/plugin.js";
import type { ServerSecurityPolicy } from "../core/policy.js";
import { toolFailure } from "../core/tool-failure.js";
import { identityFingerprint } from "../state/fingerprint.js";
import { runInline, startLegacyTask, startModernTask } from "./dispatch.js";
import { TaskEngine, type TaskSettings } from "./engine.js";
import { tasksExtension } from "./extension.js";
import { LEGACY_TASK_METHODS, serveLegacyTasks } from "./legacy.js";
import { TASK_ANSWER, type TaskRun } from "./run.js";
import { declaresTasks } from "./wire.js";

/** The tasks plugin, with its engine (`undefined` when tasks are off). */
export interface TasksPlugin extends ServerPlugin {
  readonly engine: TaskEngine | undefined;
}

/** The task engine of a server's plugins; `undefined` when tasks are off. */
export function taskEngineOf(plugins: readonly ServerPlugin[]): TaskEngine | undefined {
  const plugin = plugins.find((p) => p.name === "tasks") as TasksPlugin | undefined;
  return plugin?.engine;
}

/**
 * The plugin of a server whose tools may answer `runAsTask`: with `settings`, tasks on (the 2026-07-28 tasks
 * extension; 2025-11-25 `capabilities.tasks` and the `tasks/*` methods; a `tools/call` the client can take as a
 * task becomes one); without, every `runAsTask` answer runs inline and is the call's answer.
 */
export function tasksPlugin(
  settings: TaskSettings | undefined,
  config: { readonly logger: ServerLogger; readonly policy: ServerSecurityPolicy },
  bus?: ClusterBus,
): TasksPlugin {
  // What a work's thrown error becomes: what a builder tool's would (logged; isError text per the policy).
  const failed = (call: PluginCall) => (error: unknown) =>
    toolFailure(String(call.params.name), error, config);
  if (settings === undefined) {
    return {
      name: "tasks",
      engine: undefined,
      answers: { [TASK_ANSWER]: (run, call, context) => runInline(run as TaskRun, context, failed(call)) },
    };
  }
  const engine = new TaskEngine(settings, config.logger, bus);
  let host: PluginHost | undefined;
  const methods: { [method: string]: PluginMethod } = {};
  for (const method of LEGACY_TASK_METHODS) {
    methods[method] = async (params, call: PluginMethodCall) =>
      serveLegacyTasks(engine, method, params, {
        principal: await principalOf(call),
        signal: call.signal,
        ask: call.ask,
      });
  }
  return {
    name: "tasks",
    engine,
    extensions: [tasksExtension(engine)],
    // 2025-11-25 advertises tasks as a core capability: listing, cancelling and task-augmented `tools/call`.
    capabilities: {
      [LEGACY_VERSION]: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    },
    methods: { [LEGACY_VERSION]: methods },
    answers: {
      [TASK_ANSWER]: (run, call, context) =>
        startTask(engine, run as TaskRun, call, context, host, failed(call)),
    },
    setup: (given) => {
      host = given;
    },
    // Its data on a call's context: `ctx.pluginData.tasks`, which `ctx.taskAugmented` reads.
    context: (call) => (augmented(call) ? true : undefined),
    ready: () => engine.joined,
    close: () => engine.close(),
  };
}

/** Whether a request may create a task: a `tools/call` declaring the extension (2026) or with a `task` param. */
function augmented(call: PluginCall): boolean {
  if (call.method !== "tools/call") return false;
  return call.era === MODERN_VERSION ? declaresTasks(call.clientCapabilities) : isObject(call.params.task);
}

/** Who owns a task: the identity's fingerprint, or (2025-11-25 without an identity) the session. */
async function principalOf(call: PluginCall): Promise<string> {
  if (call.identity === undefined && call.session !== undefined) return `session:${call.session.id}`;
  return identityFingerprint(call.identity);
}

/** A `runAsTask` answer: a task when the client can take one, else its work runs inline. */
async function startTask(
  engine: TaskEngine,
  run: TaskRun,
  call: PluginCall,
  context: RequestContext,
  host: PluginHost | undefined,
  failed: (error: unknown) => CallToolResult,
): Promise<{ [key: string]: unknown }> {
  if (!context.taskAugmented) return runInline(run, context, failed);
  const principal = await principalOf(call);
  if (call.era === MODERN_VERSION || call.session === undefined) {
    // Its input requests reach the client in the task's status: through the clientRequest hooks first.
    const out = { era: call.era, call, session: undefined };
    const place =
      host === undefined
        ? undefined
        : async (requests: InputRequests) => {
            const placed: { [key: string]: unknown } = {};
            for (const [key, request] of Object.entries(requests)) {
              placed[key] = await host.placeRequest(request, out);
            }
            return placed as InputRequests;
          };
    return startModernTask(engine, run, principal, place === undefined ? { failed } : { place, failed });
  }
  const session = call.session;
  return startLegacyTask(engine, run, principal, call.params, (message) => session.notify(message), failed);
}
