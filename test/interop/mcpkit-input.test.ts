/**
 * The mcpkit client against the mcpkit server, in process, in both eras: the server's `inputRequired()`
 * handlers (test/support/input-server.ts) are answered by the client's callbacks (2026-07-28: input rounds;
 * 2025-11-25: real server requests), and 2026 subscriptions run end to end. Every message is checked against the
 * official schema of its era.
 */
import { describe, expect, it } from "vitest";
import {
  Client,
  type ClientOptions,
  type InputContext,
  type InputResponses,
  JsonRpcError,
} from "../../src/client/index.js";
import type { Server } from "../../src/server/server.js";
import { accept, inputServer, reply } from "../support/input-server.js";
import { LEGACY, MODERN, textOf, useCleanups, wireLog } from "../support/interop-helpers.js";
import { type Era, useWireValidation, validatingPair } from "../support/validating-transport.js";

useWireValidation();
const cleanup = useCleanups();

const ALL = { elicitation: {}, sampling: {}, roots: {} };

/** Answers what the input server asks: a name, a color, a topic, a password; "42" from the model; one root. */
function answers(asked: string[]): Pick<ClientOptions, "onElicitation" | "onSampling" | "onRoots"> {
  return {
    onElicitation: (params, context: InputContext) => {
      asked.push(`${context.era} ${params.message}`);
      if (params.mode === "url") return { action: "accept" };
      const field = Object.keys(params.requestedSchema.properties)[0] ?? "";
      const values: { [field: string]: string } = {
        name: "Ada",
        color: "teal",
        topic: "tides",
        password: "s3cret",
      };
      return accept({ [field]: values[field] ?? "?" }) as {
        action: "accept";
        content: { [k: string]: string };
      };
    },
    onSampling: (_params, context) => {
      asked.push(`${context.era} sampling`);
      return reply("42") as { role: "assistant"; content: { type: "text"; text: string }; model: string };
    },
    onRoots: (context) => {
      asked.push(`${context.era} roots`);
      return { roots: [{ uri: "file:///work", name: "work" }] };
    },
  };
}

async function connect(
  era: Era,
  options: Partial<Pick<ClientOptions, "capabilities" | "onInputRequired">> = {},
) {
  const { server, calls } = inputServer();
  const pair = validatingPair({ era });
  await server.connect(pair.server);
  const asked: string[] = [];
  const client = new Client({
    transport: pair.client,
    clientInfo: { name: "mcpkit-client", version: "0.1.0" },
    protocolVersion: era,
    requestTimeoutMs: 5_000,
    logger: { warn: () => {} },
    capabilities: options.capabilities ?? { ...ALL, elicitation: { form: {}, url: {} } },
    ...(options.onInputRequired ? { onInputRequired: options.onInputRequired } : answers(asked)),
  });
  cleanup(
    () => client.close(),
    () => server.close(),
  );
  await client.connect();
  return { server, client, calls, asked, ...wireLog(pair.messages) };
}

describe.each([MODERN, LEGACY] as const)(
  "mcpkit Client answers an mcpkit server's input requests (%s)",
  (era) => {
    it("elicitation, sampling and roots", async () => {
      const { client, asked } = await connect(era);
      expect(textOf(await client.callTool("greet", {}))).toBe("Hello, Ada!");
      expect(textOf(await client.callTool("ask_llm", { question: "Why?" }))).toBe("The model says: 42");
      expect(textOf(await client.callTool("roots", {}))).toBe("file:///work");
      expect(asked).toEqual([`${era} Your name?`, `${era} sampling`, `${era} roots`]);
    });

    it("several inputs in one round, and several rounds with state", async () => {
      const { client, sent } = await connect(era);
      expect(textOf(await client.callTool("everything", {}))).toBe("42 Ada");
      expect(textOf(await client.callTool("survey", {}))).toBe("Ada likes teal");
      if (era === MODERN) {
        const survey = sent("tools/call").filter((r) => r.params?.name === "survey");
        expect(survey).toHaveLength(3);
        // The server seals its state; the client echoes each round's exactly.
        expect(typeof survey[1]?.params?.requestState).toBe("string");
        expect(survey[2]?.params?.requestState).not.toBe(survey[1]?.params?.requestState);
      } else {
        expect(sent("tools/call")).toHaveLength(2);
      }
    });

    it("a resource and a prompt that ask for input; a URL elicitation", async () => {
      const { client } = await connect(era);
      const secret = await client.readResource("test://secret");
      expect(secret.contents).toEqual([{ uri: "test://secret", text: "the secret, unlocked by s3cret" }]);
      const prompt = await client.getPrompt("contextual");
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "Talk about tides" } },
      ]);
      // In 2025-11-25 the server mints the elicitationId that era requires; the wire validator checks it.
      expect(textOf(await client.callTool("url", {}))).toBe("signed in");
    });

    it("a missing response is asked for again (2026); fails the call in 2025", async () => {
      const asked: string[][] = [];
      const { client } = await connect(era, {
        capabilities: ALL,
        onInputRequired: (requests) => {
          asked.push(Object.keys(requests).sort());
          // The second round shows what the server asked again; stop there.
          if (era === MODERN && asked.length === 2) throw new Error("seen enough");
          const responses: InputResponses = {};
          for (const [key, request] of Object.entries(requests)) {
            // The sampling request is never answered.
            if (request.method === "roots/list") responses[key] = { roots: [] };
            else if (request.method === "elicitation/create")
              responses[key] = { action: "accept", content: { name: "Ada" } };
          }
          return responses;
        },
      });
      const error = await client.callTool("everything", {}).catch((e: unknown) => e);
      if (era === MODERN) {
        expect(asked).toEqual([["answer", "name", "roots"], ["answer"]]);
        expect(error).toMatchObject({ code: "CALLBACK_FAILED" });
      } else {
        // 2025: the unanswered server request gets -32603 from the client, which fails the server's call.
        expect(error).toBeInstanceOf(JsonRpcError);
        expect((error as JsonRpcError).message).toContain("client callback gave no answer");
      }
    });

    it("the round bound stops a server that never completes", async () => {
      const { client, calls } = await connect(era);
      const outcome = await client.callTool("loop", {}).catch((e: unknown) => e);
      if (era === MODERN) {
        expect(outcome).toMatchObject({
          code: "LIMIT_EXCEEDED",
          details: { option: "maxInputRounds", limit: 16, size: 17 },
        });
        expect(calls.loop).toBe(17);
      } else {
        // The server's own legacy loop bound ends it.
        expect(outcome).toBeDefined();
      }
    });
  },
);

describe("2026-07-28 subscriptions against an mcpkit server", () => {
  async function listening() {
    const { server, client, ...log } = await connect(MODERN);
    const sub = await client.listenSubscriptions({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["test://plain"],
    });
    return { server: server as Server, client, sub, ...log };
  }

  it("acknowledges first, then delivers list changes and resource updates", async () => {
    const { server, sub } = await listening();
    expect(await sub.next(1_000)).toEqual({
      type: "acknowledged",
      notifications: {
        toolsListChanged: true,
        promptsListChanged: true,
        resourceSubscriptions: ["test://plain"],
      },
    });
    await server.notifyListChanged("tools");
    await server.notifyResourceUpdated("test://plain");
    await server.notifyResourceUpdated("test://secret"); // not subscribed: never sent
    expect(await sub.next(1_000)).toMatchObject({
      notification: { method: "notifications/tools/list_changed" },
    });
    expect(await sub.next(1_000)).toMatchObject({
      notification: { method: "notifications/resources/updated", params: { uri: "test://plain" } },
    });
    expect(await sub.next(50)).toEqual({ type: "timeout" });
  });

  it("close() cancels it on the server", async () => {
    const { server, sub } = await listening();
    await sub.next(1_000);
    expect(server.subscriptionCount).toBe(1);
    expect(await sub.close()).toEqual({ confirmed: true, end: { reason: "closed" } });
    for (let i = 0; i < 100 && server.subscriptionCount > 0; i++) await new Promise((r) => setTimeout(r, 2));
    expect(server.subscriptionCount).toBe(0);
  });

  it("a server that closes sends the complete result, and the subscription ends", async () => {
    const { server, sub, sent, answer } = await listening();
    await sub.next(1_000);
    await server.close();
    const end = await sub.ended;
    expect(answer(sent("subscriptions/listen")[0])).toMatchObject({
      result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": sub.id } },
    });
    // The in-process pair drops messages still in flight when it closes, so the close can overtake the result.
    expect(["completed", "transport_closed"]).toContain(end.reason);
  });
});

describe("2025-11-25 resource subscriptions against an mcpkit server", () => {
  it("subscribeResource makes updates reach onNotification", async () => {
    const { server } = inputServer();
    const pair = validatingPair({ era: LEGACY });
    await server.connect(pair.server);
    const seen: unknown[] = [];
    const client = new Client({
      transport: pair.client,
      clientInfo: { name: "mcpkit-client", version: "0.1.0" },
      protocolVersion: LEGACY,
      onNotification: (n) => seen.push(n),
    });
    cleanup(
      () => client.close(),
      () => server.close(),
    );
    await client.connect();
    await client.subscribeResource("test://plain");
    await server.notifyResourceUpdated("test://plain");
    await client.unsubscribeResource("test://plain");
    await server.notifyResourceUpdated("test://plain");
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([{ method: "notifications/resources/updated", params: { uri: "test://plain" } }]);
  });
});
