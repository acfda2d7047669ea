import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import { TERMINAL_STATUSES } from "../../protocol/types/tasks.js";
import { methodNotFound } from "../core/errors.js";
import type { PluginMethodCall } from "../core/plugin.js";
import type { TaskEngine } from "./engine.js";
import { legacyPayload, legacyTask } from "./wire.js";

type Params = { [key: string]: unknown };

/** The 2025-11-25 core tasks methods a server with tasks serves. */
export const LEGACY_TASK_METHODS: ReadonlySet<string> = new Set([
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
]);

/** Tasks listed per `tasks/list` page. */
export const TASK_PAGE_SIZE = 100;

/** Who asks and how a 2025-11-25 tasks request reaches the client. */
export interface LegacyTaskEnv {
  readonly principal: string;
  readonly signal: AbortLike | undefined;
  /** Sends a waiting task's input requests to the client while `tasks/result` waits. */
  readonly ask: PluginMethodCall["ask"];
}

/**
 * Serves a 2025-11-25 tasks method: `tasks/get` (the task), `tasks/result` (waits until the task is done, sending
 * its input requests to the client meanwhile, then its result with the related-task `_meta`, or its error),
 * `tasks/list` (the principal's tasks, 100 a page) and `tasks/cancel` (`-32602` for a task already done).
 */
export async function serveLegacyTasks(
  engine: TaskEngine,
  method: string,
  params: Params,
  env: LegacyTaskEnv,
): Promise<Params> {
  switch (method) {
    case "tasks/get":
      return legacyTask(await engine.get(env.principal, params.taskId));
    case "tasks/result": {
      const abort = new AbortController();
      const onAbort = () => abort.abort(env.signal?.reason);
      if (env.signal?.aborted) onAbort();
      else env.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const record = await engine.waitTerminal(env.principal, params.taskId, abort.signal, env.ask);
        return legacyPayload(record);
      } finally {
        env.signal?.removeEventListener("abort", onAbort);
      }
    }
    case "tasks/list": {
      const all = await engine.list(env.principal);
      const start = params.cursor === undefined ? 0 : Number(params.cursor);
      if (!Number.isInteger(start) || start < 0 || start > all.length) {
        throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: unknown cursor");
      }
      const page = all.slice(start, start + TASK_PAGE_SIZE);
      const result: Params = { tasks: page.map(legacyTask) };
      if (start + TASK_PAGE_SIZE < all.length) result.nextCursor = String(start + TASK_PAGE_SIZE);
      return result;
    }
    case "tasks/cancel": {
      const record = await engine.get(env.principal, params.taskId);
      if (TERMINAL_STATUSES.has(record.status)) {
        throw new JsonRpcError(ErrorCode.InvalidParams, `Task ${record.taskId} is already ${record.status}`, {
          taskId: record.taskId,
          status: record.status,
        });
      }
      return legacyTask(await engine.cancel(env.principal, record.taskId));
    }
    default:
      throw methodNotFound(method);
  }
}
