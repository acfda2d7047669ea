/**
 * `ServerPlugin.idle`: a plugin that has nothing to do for the requests beginning now (an instrumentation with
 * nowhere to record) costs them nothing: no call info, none of its request hooks, its notifications untouched.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { ServerPlugin } from "../../src/server/core/plugin.js";
import type { Server } from "../../src/server/server.js";
import { connectInProcess } from "../support/in-process-client.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
let closers: Array<() => Promise<unknown>> = [];
const track = (...close: Array<() => Promise<unknown>>) => closers.push(...close);
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/** A plugin with every request hook, each noting its call; idle while `state.idle`. */
function sleepy(name: string, state: { idle: boolean }, seen: string[]): ServerPlugin {
  return {
    name,
    idle: () => state.idle,
    admit: (call) => void seen.push(`${name} admit ${call.method}`),
    context: () => `${name} data`,
    response(_response, call) {
      seen.push(`${name} response ${call.method}`);
      return undefined;
    },
    notification(notification) {
      seen.push(`${name} notification ${notification.method}`);
      return { ...notification, params: { ...notification.params, _meta: { stamped: name } } };
    },
  };
}

function server(plugins: ServerPlugin[]): Server {
  return new ServerBuilder({ serverInfo: { name: "idle", version: "1.0.0" }, plugins })
    .tool({ name: "work", inputSchema: { type: "object" } }, async (_args, ctx) => {
      await ctx.progress(1, 2);
      return { content: [{ type: "text", text: JSON.stringify(ctx.pluginData) }] };
    })
    .build();
}

type Params = { readonly [key: string]: unknown };

async function connect(target: Server, era: Era, progress: Params[]) {
  return connectInProcess(
    target,
    { protocolVersion: era, onProgress: (p) => void progress.push({ ...p }) },
    track,
  );
}

describe("an idle plugin", () => {
  for (const era of ERAS) {
    it(`${era}: runs none of its request hooks and builds no call info while idle, all of them once awake`, async () => {
      const state = { idle: true };
      const seen: string[] = [];
      const target = server([sleepy("otel-like", state, seen)]);
      const progress: Params[] = [];
      const client = await connect(target, era, progress);
      expect(target.config.hooks.needsCall()).toBe(false);
      const quiet = await client.callTool("work", {});
      expect(quiet.content[0]).toEqual({ type: "text", text: "{}" });
      expect(seen).toEqual([]);
      expect(progress).toHaveLength(1);
      expect(progress[0]?._meta ?? {}).not.toHaveProperty("stamped");

      // Asked as each request begins: the next one runs every hook.
      state.idle = false;
      expect(target.config.hooks.needsCall()).toBe(true);
      const awake = await client.callTool("work", {});
      expect(awake.content[0]).toEqual({ type: "text", text: '{"otel-like":"otel-like data"}' });
      expect(seen).toEqual([
        "otel-like admit tools/call",
        "otel-like notification notifications/progress",
        "otel-like response tools/call",
      ]);
      expect(progress[1]?._meta).toMatchObject({ stamped: "otel-like" });
    });
  }

  it("runs every plugin's hooks when one of them is not idle (an idle one is called, and should do nothing)", async () => {
    const seen: string[] = [];
    const target = server([
      sleepy("first", { idle: true }, seen),
      { name: "busy", admit: (call) => void seen.push(`busy admit ${call.method}`) },
    ]);
    const client = await connect(target, MODERN_VERSION, []);
    expect(target.config.hooks.needsCall()).toBe(true);
    await client.callTool("work", {});
    expect(seen).toContain("first admit tools/call");
    expect(seen).toContain("busy admit tools/call");
  });
});
