import { afterEach, describe, expect, it } from "vitest";
import { createGateway } from "../../src/gateway/index.js";
import { serve } from "../../src/node/serve.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/index.js";
import { configError } from "../support/config-error.js";
import { eventually, fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("the gateway to a %s client", (era) => {
  it("lists every upstream's tools, prompts, resources and templates, namespaced, and routes each call back", async () => {
    const { client } = await gatewayWithClient(
      { alpha: fixtureUpstream("alpha"), beta: fixtureUpstream("beta", { start: "boot" }) },
      { protocolVersion: era },
      closers,
    );
    const tools = (await client.listAllTools()).map((t) => t.name);
    expect(tools).toContain("alpha__echo");
    expect(tools).toContain("beta__echo");
    expect(text(await client.callTool("alpha__echo", { text: "hi" }))).toBe("alpha: hi");
    expect(text(await client.callTool("beta__echo", { text: "yo" }))).toBe("beta: yo");

    expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(["alpha__greet", "beta__greet"]);
    const prompt = await client.getPrompt("beta__greet", { name: "Ada" });
    expect(prompt.messages[0]?.content).toMatchObject({ text: "Hello Ada" });

    const resources = await client.listAllResources();
    expect(resources.map((r) => r.uri)).toEqual(["gateway://alpha/note://a", "gateway://beta/note://a"]);
    const read = await client.readResource("gateway://beta/note://a");
    expect(read.contents).toEqual([{ uri: "gateway://beta/note://a", text: "note a of beta" }]);
    const templates = await client.listAllResourceTemplates();
    expect(templates.map((t) => t.uriTemplate)).toEqual([
      "gateway://alpha/note://{id}",
      "gateway://beta/note://{id}",
    ]);
    const templated = await client.readResource("gateway://alpha/note://7");
    expect(templated.contents[0]).toMatchObject({ uri: "gateway://alpha/note://7", text: "note 7 of alpha" });

    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "alpha__greet" },
      argument: { name: "name", value: "al" },
    });
    expect(completion.completion.values).toEqual(["alice", "albert"]);

    const link = await client.callTool("alpha__link", {});
    expect(link.content).toEqual([{ type: "resource_link", uri: "gateway://alpha/note://a", name: "a" }]);
  });

  it("answers a name no upstream serves with -32602, and forwards progress", async () => {
    const { client } = await gatewayWithClient(
      { alpha: fixtureUpstream("alpha") },
      { protocolVersion: era },
      closers,
    );
    await expect(client.callTool("nobody__echo", {})).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool("alpha__nothing", {})).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource("gateway://nobody/x")).rejects.toBeDefined();
    const steps: number[] = [];
    const result = await client.callTool(
      "alpha__progress",
      {},
      { onProgress: (p) => steps.push(p.progress) },
    );
    expect(text(result)).toBe("progressed");
    expect(steps).toEqual([1, 2]);
  });

  it("passes list_changed on: an upstream that grows a tool reaches the client", async () => {
    let changed = 0;
    const { client } = await gatewayWithClient(
      { alpha: fixtureUpstream("alpha", { start: "boot" }) },
      {
        protocolVersion: era,
        onNotification: (n) => {
          if (n.method === "notifications/tools/list_changed") changed++;
        },
      },
      closers,
    );
    expect((await client.listAllTools()).map((t) => t.name)).not.toContain("alpha__grown");
    if (era === MODERN_VERSION) {
      const sub = await client.listenSubscriptions({ toolsListChanged: true });
      await sub.next(10_000);
      await client.callTool("alpha__grow", {});
      const event = await sub.next(10_000);
      expect(event).toMatchObject({ type: "notification" });
      await sub.close();
    } else {
      await client.callTool("alpha__grow", {});
      await eventually(() => changed > 0);
    }
    await eventually(async () => (await client.listAllTools()).some((t) => t.name === "alpha__grown"));
  });
});

/** An upstream whose one tool, `whoami`, answers the token of the caller's identity. */
function whoamiUpstream() {
  return new ServerBuilder({ serverInfo: { name: "remote", version: "1" } })
    .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, ctx) => ({
      content: [{ type: "text", text: String((ctx.identity as { token?: string } | undefined)?.token) }],
    }))
    .build();
}

describe("an upstream over Streamable HTTP", () => {
  it("is reached at its url with the config's static headers, next to a stdio one", async () => {
    const seen: unknown[] = [];
    const handle = await serve(whoamiUpstream(), {
      handler: {
        authenticate: (request) => {
          const header = request.headers.get("authorization");
          seen.push(header);
          return header === "Bearer upstream-secret" ? { token: "upstream-secret" } : undefined;
        },
      },
    });
    closers.push(() => handle.close());
    const { client } = await gatewayWithClient(
      {
        remote: { url: handle.url, headers: { authorization: "Bearer upstream-secret" } },
        local: fixtureUpstream("local"),
      },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    expect(text(await client.callTool("remote__whoami", {}))).toBe("upstream-secret");
    expect(text(await client.callTool("local__echo", { text: "x" }))).toBe("local: x");
    expect(seen.length).toBeGreaterThan(0);
  });
});

describe("progress through the gateway", () => {
  it("is asked of the upstream only when the client asked for it", async () => {
    const asked: boolean[] = [];
    const upstream = new ServerBuilder({ serverInfo: { name: "remote", version: "1" } })
      .tool({ name: "tick", inputSchema: { type: "object" } }, async (_args, ctx) => {
        asked.push(ctx.meta.progressToken !== undefined);
        await ctx.progress(1, 1);
        return { content: [{ type: "text", text: "ticked" }] };
      })
      .build();
    const handle = await serve(upstream);
    closers.push(() => handle.close());
    const { client } = await gatewayWithClient({ remote: { url: handle.url } }, {}, closers);
    expect(text(await client.callTool("remote__tick", {}))).toBe("ticked");
    const steps: number[] = [];
    await client.callTool("remote__tick", {}, { onProgress: (p) => steps.push(p.progress) });
    expect(asked).toEqual([false, true]);
    expect(steps).toEqual([1]);
  });
});

describe("per-upstream credentials", () => {
  it("sends an HTTP upstream's auth provider's headers (an OAuthClient's place), and refuses one for no HTTP upstream", async () => {
    const handle = await serve(whoamiUpstream(), {
      handler: {
        authenticate: (request) => {
          const header = request.headers.get("authorization");
          return header?.startsWith("Bearer ") ? { token: header.slice(7) } : undefined;
        },
      },
    });
    closers.push(() => handle.close());
    let asked = 0;
    const provider = {
      headers: () => {
        asked++;
        return { authorization: "Bearer from-provider" };
      },
      onChallenge: () => false,
    };
    const { client } = await gatewayWithClient(
      { remote: { url: handle.url } },
      { protocolVersion: MODERN_VERSION },
      closers,
      { authProviders: { remote: provider } },
    );
    expect(text(await client.callTool("remote__whoami", {}))).toBe("from-provider");
    expect(asked).toBeGreaterThan(0);
    const local = { mcpServers: { local: fixtureUpstream("local") } };
    expect(
      configError(() => createGateway({ config: local, authProviders: { local: provider } })).details,
    ).toEqual({
      key: "authProviders.local",
    });
  });
});
