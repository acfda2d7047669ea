import {
  type CallToolOptions,
  type Client,
  type ClientTask,
  callToolAsTask,
  cancelTask,
  isCreateTaskResult,
  toClientTask,
  waitForTask,
} from "../client/index.js";
import type { Clock } from "../jsonrpc/clock.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import { TASKS_EXTENSION } from "../protocol/types/tasks.js";
import type { CallToolResult, Tool } from "../protocol/types/tools.js";
import { LEGACY_VERSION } from "../protocol/versions.js";

/** The poll interval of an upstream task: the upstream's suggestion, clamped to these. */
export const UPSTREAM_TASK_POLL = Object.freeze({ minPollMs: 100, maxPollMs: 5_000 });
// The gateway task's own TTL (its signal) ends the wait first; this only keeps the client's arithmetic finite.
const UPSTREAM_TASK_DEADLINE_MS = 86_400_000;

/** How one call is made upstream, and what the gateway's task hears of it when it runs as one. */
export interface UpstreamCall {
  readonly client: Client;
  readonly upstream: string;
  readonly tool: string;
  readonly args: { [key: string]: unknown } | undefined;
  readonly options: CallToolOptions & { timeoutMs: number };
  readonly clock: Clock;
  /** Set when the downstream call runs as the gateway's task: the upstream task's status goes here. */
  readonly mirror?: ((task: ClientTask) => void) | undefined;
}

/**
 * Whether a tool can run as the upstream's own task: it says `taskSupport` `optional` or `required`, and the
 * upstream serves tasks (2025-11-25: the `tasks.requests.tools.call` capability; 2026-07-28: the tasks extension).
 */
export function takesTasks(client: Client, tool: Tool | undefined): boolean {
  const support = tool?.execution?.taskSupport;
  if (support !== "optional" && support !== "required") return false;
  const caps = client.serverCapabilities as { [key: string]: unknown } | undefined;
  if (client.era === LEGACY_VERSION) return isObject(at(at(at(caps?.tasks, "requests"), "tools"), "call"));
  return isObject(at(caps?.extensions, TASKS_EXTENSION));
}

/**
 * Calls an upstream tool. Made as the gateway's task (`mirror` set) on a tool that {@link takesTasks}, or on
 * one whose `taskSupport` is `required` (which a 2025-11-25 server refuses to run inline), the upstream is called
 * as a task of its own: its status message mirrored into the gateway's task if there is one, its input requests
 * reaching the bridge through the call's resolver, its result fetched once done, and the upstream task cancelled
 * when `options.signal` aborts (the downstream call or the gateway's task was cancelled, or its deadline or TTL
 * passed). Otherwise a plain call; a 2026-07-28 upstream may still answer it with a task (the gateway's client
 * declares the extension), which is then waited for.
 */
export async function callUpstreamTool(call: UpstreamCall, tool: Tool | undefined): Promise<CallToolResult> {
  const { client, options } = call;
  const asTask = call.mirror !== undefined || tool?.execution?.taskSupport === "required";
  if (asTask && takesTasks(client, tool)) {
    const { task, result } = await callToolAsTask(client, call.tool, call.args ?? {}, options);
    if (task === undefined) return result;
    return follow(call, task);
  }
  const answer = await client.callTool(call.tool, call.args, options);
  return isCreateTaskResult(answer) ? follow(call, toClientTask(answer)) : answer;
}

function at(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

async function follow(call: UpstreamCall, task: ClientTask): Promise<CallToolResult> {
  const { client, options, mirror } = call;
  let said: string | undefined;
  const onStatus = (current: ClientTask) => {
    if (mirror === undefined || current.statusMessage === undefined || current.statusMessage === said) return;
    said = current.statusMessage;
    mirror(current);
  };
  try {
    return await waitForTask(client, task, {
      ...UPSTREAM_TASK_POLL,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      deadlineMs: UPSTREAM_TASK_DEADLINE_MS,
      ...(options.onInputRequired === undefined ? {} : { onInputRequired: options.onInputRequired }),
      clock: call.clock,
      onStatus,
    });
  } catch (error) {
    if (options.signal?.aborted) {
      await cancelTask(client, task.taskId, { timeoutMs: options.timeoutMs }).catch(() => {});
      throw error;
    }
    if (error instanceof McpkitError && error.code === "ABORTED") {
      throw new JsonRpcError(-32603, `upstream "${call.upstream}" cancelled the task`, {
        upstream: call.upstream,
        reason: "upstream_task_cancelled",
      });
    }
    throw error;
  }
}
