import { TASKS_EXTENSION } from "../../protocol/types/tasks.js";
import { MODERN_VERSION } from "../../protocol/versions.js";
import type { RequestContext } from "../core/context.js";
import { defineExtension, type Extension } from "../custom/extension.js";
import { identityFingerprint } from "../state/fingerprint.js";
import type { TaskEngine } from "./engine.js";
import { declaresTasks, detailedTask, tasksCapabilityMissing } from "./wire.js";

/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) over a server's engine:
 * `tasks/get` (the task, its result or error inlined once it is done), `tasks/update` (input answers, acked with
 * an empty result) and `tasks/cancel` (an empty ack, also for a task already done). A request that does not
 * declare the extension in its capabilities gets `-32021`; an unknown task, `-32602`.
 */
export function tasksExtension(engine: TaskEngine): Extension {
  return defineExtension({
    id: TASKS_EXTENSION,
    eras: [MODERN_VERSION],
    requests: {
      "tasks/get": async (params, ctx) =>
        detailedTask(await engine.get(await principalOf(ctx), params.taskId)),
      "tasks/update": async (params, ctx) => {
        await engine.update(await principalOf(ctx), params.taskId, ctx.inputResponses ?? {});
        return {};
      },
      "tasks/cancel": async (params, ctx) => {
        await engine.cancel(await principalOf(ctx), params.taskId);
        return {};
      },
    },
  });
}

async function principalOf(ctx: RequestContext): Promise<string> {
  if (!declaresTasks(ctx.clientCapabilities)) throw tasksCapabilityMissing(ctx.method);
  return identityFingerprint(ctx.identity);
}
