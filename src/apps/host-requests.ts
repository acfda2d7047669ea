import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { Tool } from "../protocol/types/tools.js";
import { BRIDGE_METHODS as M } from "./constants.js";
import type { AppHostOptions } from "./host-options.js";
import { checkOpenLink } from "./link-policy.js";
import type { DisplayMode, ModelContextUpdate } from "./types.js";
import { isAppCallable } from "./visibility.js";

/** What the host end's request handlers need of it. */
export interface HostState {
  options: AppHostOptions;
  currentMode(): DisplayMode;
  viewModes(): readonly DisplayMode[] | undefined;
  setMode(mode: DisplayMode): void;
  setModelContext(update: ModelContextUpdate): void;
  tools(): Promise<readonly Tool[]>;
}

/** `-32000`, the spec's code for a host's refusal (a denied link, a refused message). */
const REFUSED = -32000;
const MODES: readonly DisplayMode[] = ["inline", "fullscreen", "pip"];

const refuse = (message: string) => new JsonRpcError(REFUSED, message);
const notFound = (method: string) => new JsonRpcError(ErrorCode.MethodNotFound, `${method} is not available`);
const badParams = (message: string) => new JsonRpcError(ErrorCode.InvalidParams, message);

function isRecord(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Serves one request of the view (after the handshake). */
export async function hostRequest(
  state: HostState,
  method: string,
  params: { [key: string]: unknown },
): Promise<object> {
  const o = state.options;
  const client = o.client;
  switch (method) {
    case M.openLink: {
      const verdict = checkOpenLink(params.url, o.linkPolicy);
      if (!verdict.ok) throw refuse(`Policy violation: ${verdict.reason}`);
      if (o.onOpenLink === undefined) throw refuse("this host opens no links");
      if ((await o.onOpenLink(verdict.url)) === false) throw refuse("denied by user");
      return {};
    }
    case M.message: {
      if (params.role !== "user") throw badParams('ui/message role must be "user"');
      const content = Array.isArray(params.content)
        ? params.content
        : isRecord(params.content)
          ? [params.content]
          : undefined;
      if (content === undefined) throw badParams("ui/message content must be content blocks");
      if (o.onMessage === undefined) throw notFound(method);
      await o.onMessage({ role: "user", content });
      return {};
    }
    case M.requestDisplayMode: {
      const mode = params.mode as DisplayMode;
      if (!MODES.includes(mode)) throw badParams("mode must be inline, fullscreen or pip");
      const current = state.currentMode();
      // A host never switches a view to a mode the view did not list.
      if (!(state.viewModes() ?? ["inline"]).includes(mode)) return { mode: current };
      const granted = o.onDisplayMode ? await o.onDisplayMode(mode) : current;
      state.setMode(granted);
      return { mode: granted };
    }
    case M.updateModelContext: {
      const update: ModelContextUpdate = {};
      if (params.content !== undefined) {
        if (!Array.isArray(params.content)) throw badParams("content must be an array");
        update.content = params.content;
      }
      if (params.structuredContent !== undefined) {
        if (!isRecord(params.structuredContent)) throw badParams("structuredContent must be an object");
        update.structuredContent = params.structuredContent;
      }
      if (o.onModelContext === undefined) throw notFound(method);
      state.setModelContext(update);
      o.onModelContext(update);
      return {};
    }
    case M.downloadFile: {
      if (!Array.isArray(params.contents)) throw badParams("contents must be an array");
      if (o.onDownloadFile === undefined) throw notFound(method);
      await o.onDownloadFile({ contents: params.contents });
      return {};
    }
    case "tools/call": {
      if (client?.callTool === undefined) throw notFound(method);
      const { name } = params;
      if (typeof name !== "string") throw badParams("name must be a string");
      if (params.arguments !== undefined && !isRecord(params.arguments))
        throw badParams("arguments must be an object");
      // Only this view's server, and only tools whose visibility includes "app".
      const tool = (await state.tools()).find((t) => t.name === name);
      if (tool === undefined) throw badParams(`Unknown tool: ${name} is not a tool of this view's server`);
      if (!isAppCallable(tool)) throw refuse(`the tool ${name} is not callable from an app (visibility)`);
      return client.callTool(name, (params.arguments as { [key: string]: unknown } | undefined) ?? {});
    }
    case "resources/read":
      if (client?.readResource === undefined) throw notFound(method);
      if (typeof params.uri !== "string") throw badParams("uri must be a string");
      return client.readResource(params.uri);
    case "resources/list":
    case "resources/templates/list":
    case "prompts/list": {
      const call =
        method === "resources/list"
          ? client?.listResources
          : method === "prompts/list"
            ? client?.listPrompts
            : client?.listResourceTemplates;
      if (call === undefined) throw notFound(method);
      const cursor = typeof params.cursor === "string" ? { cursor: params.cursor } : {};
      return call.call(client, cursor);
    }
    case "sampling/createMessage":
      if (o.onSampling === undefined) throw notFound(method);
      return o.onSampling(params);
    default:
      throw notFound(method);
  }
}
