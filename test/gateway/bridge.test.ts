import { afterEach, describe, expect, it } from "vitest";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("the era bridge to a %s client", (era) => {
  it("carries an upstream's sampling and elicitation requests to the client and its answers back", async () => {
    const asked: string[] = [];
    const { client } = await gatewayWithClient(
      { up: fixtureUpstream("up", { start: "boot" }) },
      {
        protocolVersion: era,
        capabilities: { sampling: {}, elicitation: { form: {} } },
        onSampling: (params) => {
          asked.push(`sampling: ${JSON.stringify(params.messages[0]?.content)}`);
          return { role: "assistant", content: { type: "text", text: "hi there" }, model: "test" };
        },
        onElicitation: (params) => {
          asked.push(`elicitation: ${params.message}`);
          return { action: "accept", content: { name: "Ada" } };
        },
      },
      closers,
    );
    expect(text(await client.callTool("up__sample", {}))).toBe("sampled: hi there");
    expect(text(await client.callTool("up__elicit", {}))).toBe("hello Ada");
    expect(asked).toEqual([`sampling: {"type":"text","text":"say hi"}`, "elicitation: Who are you?"]);
  });

  it("answers the upstream's request with an error when the client lacks the capability, and the call fails cleanly", async () => {
    const { client } = await gatewayWithClient(
      { up: fixtureUpstream("up", { start: "boot" }) },
      { protocolVersion: era },
      closers,
    );
    await expect(client.callTool("up__sample", {})).rejects.toBeDefined();
    // The gateway and the upstream go on.
    expect(text(await client.callTool("up__echo", { text: "ok" }))).toBe("up: ok");
  });
});
