/**
 * Interop: the mcpkit client answers an official v2 server's (`@modelcontextprotocol/server` 2.4.0) requests for
 * input, in both eras, over one half of the official in-memory pair served dual-era by `serveStdio`. In
 * 2026-07-28 the server's tools return `inputRequired(...)` and the mcpkit client retries with
 * `inputResponses`; in 2025-11-25 the same tools run through the official legacy shim, which sends real
 * `elicitation/create` and `sampling/createMessage` requests to the mcpkit client, and a push-style tool calls
 * `elicitInput` and `requestSampling` itself. Every message is checked against the official schema of its era.
 */
import {
  InMemoryTransport,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { describe, expect, it } from "vitest";
import { Client, type ClientOptions, JsonRpcError } from "../../src/client/index.js";
import { LEGACY, MODERN, textOf, useCleanups, wireLog } from "../support/interop-helpers.js";
import { fromOfficialTransport } from "../support/official-bridge.js";
import {
  type Era,
  useWireValidation,
  type WireRecord,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";

useWireValidation();
const cleanup = useCleanups();

const NAME_SCHEMA = {
  type: "object" as const,
  properties: { name: { type: "string" as const, description: "Your name" } },
  required: ["name"],
};
const haikuAbout = (name: string) => ({
  messages: [{ role: "user" as const, content: { type: "text" as const, text: `A haiku about ${name}` } }],
  maxTokens: 50,
});

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

function sampledText(view: ReturnType<typeof inputResponse>): string | undefined {
  if (view.kind !== "sampling") return undefined;
  const content = view.result.content;
  const block = Array.isArray(content) ? content[0] : content;
  return block?.type === "text" ? block.text : undefined;
}

/** The official server: write-once multi-round tools (both eras) and a push-style tool (2025-11-25). */
function officialServer(): McpServer {
  const server = new McpServer({ name: "official-v2-input", version: "2.4.0" });
  // One round, two inputs: an elicitation and a sampling request.
  server.registerTool(
    "survey",
    { description: "Asks a name and a haiku at once" },
    async (ctx: ServerContext) => {
      const responses = ctx.mcpReq.inputResponses;
      const name = inputResponse(responses, "name");
      const haiku = sampledText(inputResponse(responses, "haiku"));
      if (name.kind !== "elicit" || haiku === undefined) {
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({ message: "Your name?", requestedSchema: NAME_SCHEMA }),
            haiku: inputRequired.createMessage(haikuAbout("the sea")),
          },
        });
      }
      return text(`${String(name.content?.name)} / ${haiku}`);
    },
  );
  // Two rounds, the name carried in requestState between them.
  server.registerTool(
    "two-step",
    { description: "Asks a name, then a haiku about it" },
    async (ctx: ServerContext) => {
      const responses = ctx.mcpReq.inputResponses;
      const state = ctx.mcpReq.requestState<string>();
      if (state === undefined) {
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({ message: "Your name?", requestedSchema: NAME_SCHEMA }),
          },
          requestState: "step-1",
        });
      }
      if (state === "step-1") {
        const name = inputResponse(responses, "name");
        const who =
          name.kind === "elicit" && name.action === "accept" ? String(name.content?.name) : "nobody";
        return inputRequired({
          inputRequests: { haiku: inputRequired.createMessage(haikuAbout(who)) },
          requestState: `step-2:${who}`,
        });
      }
      return text(
        `${state.slice("step-2:".length)} / ${sampledText(inputResponse(responses, "haiku")) ?? "?"}`,
      );
    },
  );
  // 2025-11-25 only: the server sends the requests itself.
  server.registerTool(
    "push",
    { description: "elicitInput, then requestSampling" },
    async (ctx: ServerContext) => {
      const answer = await ctx.mcpReq.elicitInput({ message: "Your name?", requestedSchema: NAME_SCHEMA });
      const name = answer.action === "accept" ? String(answer.content?.name) : "nobody";
      const sampled = await ctx.mcpReq.requestSampling(haikuAbout(name));
      const block = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      return text(`${name} / ${block?.type === "text" ? block.text : "?"}`);
    },
  );
  return server;
}

/** The mcpkit client over a fresh dual-era official server, with callbacks that record what they were asked. */
async function connect(era: Era, input: Pick<ClientOptions, "capabilities"> = {}) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const serverErrors: Error[] = [];
  const handle = serveStdio(officialServer, { transport: serverSide, onerror: (e) => serverErrors.push(e) });
  const messages: WireRecord[] = [];
  const transport = wrapTransport(fromOfficialTransport(clientSide), "client", new WireValidator(era), {
    messages,
  });
  const asked: string[] = [];
  const client = new Client({
    transport,
    clientInfo: { name: "mcpkit-interop", version: "0.1.0" },
    protocolVersion: era,
    requestTimeoutMs: 5_000,
    capabilities: { elicitation: {}, sampling: {} },
    onElicitation: (params, context) => {
      asked.push(`${context.era} elicitation: ${params.message}`);
      return { action: "accept", content: { name: "Ada" } };
    },
    onSampling: (params, context) => {
      const first = params.messages[0]?.content;
      const prompt = first && !Array.isArray(first) && first.type === "text" ? String(first.text) : "?";
      asked.push(`${context.era} sampling: ${prompt}`);
      return {
        role: "assistant",
        content: { type: "text", text: `haiku for ${prompt}` },
        model: "test-model",
      };
    },
    ...input,
  });
  cleanup(
    () => client.close(),
    () => handle.close(),
  );
  await client.connect();
  return { client, asked, serverErrors, ...wireLog(messages) };
}

describe.each([MODERN, LEGACY] as const)(
  "mcpkit Client answers an official v2 server's input requests (%s)",
  (era) => {
    it("completes an elicitation and a sampling asked in one round", async () => {
      const { client, asked, sent, serverErrors, sequence } = await connect(era);
      const result = await client.callTool("survey", {});
      expect(textOf(result)).toBe("Ada / haiku for A haiku about the sea");
      expect(asked.sort()).toEqual([
        `${era} elicitation: Your name?`,
        `${era} sampling: A haiku about the sea`,
      ]);
      if (era === MODERN) {
        // The first call asks; the retry carries both responses under a new id.
        const calls = sent("tools/call");
        expect(calls).toHaveLength(2);
        expect(calls[1]?.id).not.toBe(calls[0]?.id);
        expect(calls[1]?.params?.inputResponses).toEqual({
          name: { action: "accept", content: { name: "Ada" } },
          haiku: {
            role: "assistant",
            content: { type: "text", text: "haiku for A haiku about the sea" },
            model: "test-model",
          },
        });
      } else {
        // One call; the server's shim asked through real server requests, which the client answered.
        expect(sent("tools/call")).toHaveLength(1);
        expect(sequence()).toEqual(expect.arrayContaining(["elicitation/create", "sampling/createMessage"]));
      }
      expect(serverErrors).toEqual([]);
    });

    it("completes two rounds, echoing requestState", async () => {
      const { client, asked, sent } = await connect(era);
      const result = await client.callTool("two-step", {});
      expect(textOf(result)).toBe("Ada / haiku for A haiku about Ada");
      expect(asked).toEqual([`${era} elicitation: Your name?`, `${era} sampling: A haiku about Ada`]);
      if (era === MODERN) {
        expect(sent("tools/call").map((r) => r.params?.requestState)).toEqual([
          undefined,
          "step-1",
          "step-2:Ada",
        ]);
      }
    });

    it("is refused by the server when the client did not declare the capability", async () => {
      const { client, asked } = await connect(era, { capabilities: { elicitation: {} } });
      const outcome = await client.callTool("survey", {}).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if (era === MODERN) {
        // The official server checks the request's declared capabilities before asking: -32021.
        expect("error" in outcome && outcome.error).toBeInstanceOf(JsonRpcError);
        expect(outcome).toMatchObject({
          error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
        });
      } else {
        // The legacy shim knows the capabilities from initialize and fails the tool instead of asking.
        expect("result" in outcome && outcome.result.isError).toBe(true);
      }
      expect(asked.filter((a) => a.includes("sampling"))).toEqual([]);
    });
  },
);

describe("2025-11-25 push-style requests", () => {
  it("answers elicitInput and requestSampling sent by an official v2 tool", async () => {
    const { client, asked, sequence } = await connect(LEGACY);
    const result = await client.callTool("push", {});
    expect(textOf(result)).toBe("Ada / haiku for A haiku about Ada");
    expect(asked).toEqual([`${LEGACY} elicitation: Your name?`, `${LEGACY} sampling: A haiku about Ada`]);
    expect(sequence().filter((m) => m !== "response")).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/call",
      "elicitation/create",
      "sampling/createMessage",
    ]);
  });
});
