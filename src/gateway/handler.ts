import type { InputResolver, RequestOptions } from "../client/index.js";
import type { Clock } from "../jsonrpc/clock.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { CompleteParams, CompleteResult } from "../protocol/types/completion.js";
import type { GetPromptResult } from "../protocol/types/prompts.js";
import type { ReadResourceResult } from "../protocol/types/resources.js";
import type { CallToolResult } from "../protocol/types/tools.js";
import { isInputRequired, type RequestContext, type ServerHandler } from "../server/index.js";
import type { Access } from "./access.js";
import type { Bridge, BridgedWork } from "./bridge.js";
import type { Catalogue, CatalogueBuilder } from "./catalogue.js";
import type { Namespace } from "./names.js";
import { checkArguments, checkResult } from "./policy.js";
import type { Upstream } from "./upstream.js";
import { callUpstreamTool } from "./upstream-task.js";

/** What the handler reads of the gateway: its upstreams (replaced on reload), names, lists and bridge. */
export interface HandlerDeps {
  upstreams(): ReadonlyMap<string, Upstream>;
  /** The per-principal access rules in force. */
  access(): Access;
  names: Namespace;
  catalogue: CatalogueBuilder;
  bridge: Bridge;
  /** The clock of upstream tasks' polls. */
  clock: Clock;
  /** Tells the other instances of a scaled-out gateway that an upstream's URI has a subscriber. */
  shareSubscription(upstream: string, uri: string): void;
}

/**
 * The gateway's server handler: lists are the upstreams' own, namespaced (lazy upstreams start on the first
 * list); a call, a read, a prompt or a completion goes to the upstream its name or URI names, through the
 * bridge (so the upstream's requests for input reach this client), with progress forwarded and the policy's
 * limits applied.
 */
export function gatewayHandler(deps: HandlerDeps): ServerHandler {
  const { names, bridge } = deps;
  const lists = async (ctx: RequestContext): Promise<Catalogue> => {
    const grant = deps.access().grant(ctx.identity);
    const idle = [...deps.upstreams().values()].filter(
      (u) => (u.state === "idle" || u.state === "starting") && grant.upstream(u.name),
    );
    await Promise.allSettled(idle.map((u) => u.use()));
    return deps.catalogue.build(deps.upstreams().values(), grant);
  };
  // What the caller may not use is unknown to it, as a name no upstream serves.
  const upstreamOf = (
    name: string | undefined,
    what: string,
    label: string,
    ctx: RequestContext,
  ): Upstream => {
    const upstream = name === undefined ? undefined : deps.upstreams().get(name);
    if (upstream === undefined || !deps.access().grant(ctx.identity).upstream(upstream.name)) {
      throw new JsonRpcError(-32602, `Unknown ${what}: ${label}`);
    }
    return upstream;
  };
  // Progress is asked of the upstream only when this client asked for it.
  const via = (ctx: RequestContext, onInputRequired: InputResolver): RequestOptions =>
    ctx.meta.progressToken === undefined
      ? { onInputRequired }
      : {
          onInputRequired,
          onProgress: (p) => void ctx.progress(p.progress, p.total, p.message).catch(() => {}),
        };

  return {
    listTools: async (_request, ctx) => ({ tools: (await lists(ctx)).tools }),
    listPrompts: async (_request, ctx) => ({ prompts: (await lists(ctx)).prompts }),
    listResources: async (_request, ctx) => ({ resources: (await lists(ctx)).resources }),
    listResourceTemplates: async (_request, ctx) => ({ resourceTemplates: (await lists(ctx)).templates }),

    async callTool({ name, arguments: args }, ctx) {
      const split = names.splitName(name);
      const upstream = upstreamOf(split?.upstream, "tool", name, ctx);
      const item = split?.item ?? "";
      // A later input round goes on with the call its first round checked.
      if (ctx.requestState === undefined) await upstream.use();
      const tool = upstream.tool(item);
      if (ctx.requestState === undefined) {
        const granted = deps.access().grant(ctx.identity).tool(upstream.name, name);
        if (tool === undefined || !granted || !deps.catalogue.serves(upstream, tool)) {
          throw new JsonRpcError(-32602, `Unknown tool: ${name}`);
        }
        checkArguments(upstream.name, upstream.config.policy, args);
      }
      const finish = (answer: unknown) =>
        mapLinks(checkResult(upstream.name, upstream.config.policy, answer as CallToolResult), (uri) =>
          names.uri(upstream.name, uri),
        );
      const work: BridgedWork = (signal, onInputRequired, task) =>
        upstream.call(
          (client, options) =>
            callUpstreamTool(
              {
                client,
                upstream: upstream.name,
                tool: item,
                args,
                options,
                clock: deps.clock,
                mirror: task && ((t) => void task.status(t.statusMessage ?? t.status).catch(() => {})),
              },
              tool,
            ),
          signal,
          via(ctx, onInputRequired),
        );
      // A call the client made as a task (the gateway's `tasks` option on) runs as the gateway's task, and as the
      // upstream's own task where the upstream and the tool take tasks.
      if (ctx.taskAugmented) {
        return bridge.task(upstream.name, ctx, (signal, resolver, task) =>
          work(signal, resolver, task).then(finish),
        );
      }
      const answer = await bridge.round(upstream.name, ctx, work);
      if (!isAnswer(answer)) return answer as never;
      return finish(answer);
    },

    async getPrompt({ name, arguments: args }, ctx) {
      const split = names.splitName(name);
      const upstream = upstreamOf(split?.upstream, "prompt", name, ctx);
      const item = split?.item ?? "";
      const answer = await bridge.round(upstream.name, ctx, (signal, onInputRequired) =>
        upstream.call(
          (client, options) => client.getPrompt(item, args, options),
          signal,
          via(ctx, onInputRequired),
        ),
      );
      if (!isAnswer(answer)) return answer as never;
      return checkResult(upstream.name, upstream.config.policy, answer as GetPromptResult);
    },

    async readResource({ uri }, ctx) {
      const split = names.splitUri(uri);
      const upstream = upstreamOf(split?.upstream, "resource", uri, ctx);
      const inner = split?.uri ?? "";
      const answer = await bridge.round(upstream.name, ctx, (signal, onInputRequired) =>
        upstream.call((client, options) => client.readResource(inner, options), signal, { onInputRequired }),
      );
      if (!isAnswer(answer)) return answer as never;
      const result = checkResult(upstream.name, upstream.config.policy, answer as ReadResourceResult);
      return {
        ...result,
        contents: result.contents.map((c) => ({ ...c, uri: names.uri(upstream.name, c.uri) })),
      };
    },

    /** 2026-07-28: each resource URI a client listens for is subscribed on its upstream; one that fails is left out. */
    async subscriptionFilter({ honourable }, ctx) {
      const uris = honourable.resourceSubscriptions;
      if (uris === undefined || uris.length === 0) return honourable;
      const kept: string[] = [];
      await Promise.all(
        uris.map(async (uri) => {
          if (
            await subscribeUpstream(deps, uri, ctx.identity).then(
              () => true,
              () => false,
            )
          )
            kept.push(uri);
        }),
      );
      return { ...honourable, resourceSubscriptions: uris.filter((uri) => kept.includes(uri)) };
    },

    async complete(params: CompleteParams, ctx): Promise<CompleteResult> {
      const { ref } = params;
      const split =
        ref.type === "ref/prompt" ? names.splitName(ref.name) : names.splitUri((ref as { uri: string }).uri);
      const label = ref.type === "ref/prompt" ? ref.name : (ref as { uri: string }).uri;
      const upstream = upstreamOf(
        split?.upstream,
        ref.type === "ref/prompt" ? "prompt" : "resource",
        label,
        ctx,
      );
      const inner =
        ref.type === "ref/prompt"
          ? { ...ref, name: (split as { item: string }).item }
          : { ...ref, uri: (split as { uri: string }).uri };
      return upstream.call(
        (client, options) => client.complete({ ...params, ref: inner } as CompleteParams, options),
        ctx.signal,
      );
    },
  };
}

/** Subscribes to a downstream resource URI on its upstream; `-32602` for a URI that names no upstream. */
export async function subscribeUpstream(deps: HandlerDeps, uri: string, identity: unknown): Promise<void> {
  const split = deps.names.splitUri(uri);
  const upstream = split === undefined ? undefined : deps.upstreams().get(split.upstream);
  if (
    upstream === undefined ||
    split === undefined ||
    !deps.access().grant(identity).upstream(upstream.name)
  ) {
    throw new JsonRpcError(-32602, `Unknown resource: ${uri}`);
  }
  await upstream.subscribe(split.uri);
  deps.shareSubscription(upstream.name, split.uri);
}

/** True for an upstream's answer, false for the bridge's `inputRequired()` round. */
function isAnswer(value: unknown): boolean {
  return !isInputRequired(value);
}

/** A tool result's resource links and embedded resources, their URIs namespaced like the resource list's. */
function mapLinks(result: CallToolResult, map: (uri: string) => string): CallToolResult {
  if (
    !Array.isArray(result.content) ||
    !result.content.some((c) => c.type === "resource_link" || c.type === "resource")
  ) {
    return result;
  }
  const content = result.content.map((block) => {
    if (block.type === "resource_link") return { ...block, uri: map(block.uri) };
    if (block.type === "resource")
      return { ...block, resource: { ...block.resource, uri: map(block.resource.uri) } };
    return block;
  });
  return { ...result, content };
}
