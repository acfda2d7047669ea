// A client that answers a server's requests for input: elicitation (ask the user) and sampling (ask the LLM).
// The server's `plan-trip` tool asks for both; the same client callbacks serve both wire eras: in 2026-07-28
// the call is answered `input_required` and retried, in 2025-11-25 the server sends real requests to the client.
import { type CreateMessageResult, createInProcessPair, type ElicitResult, type Era } from "mcpkit";
import { Client, type CreateMessageParams, type ElicitParams } from "mcpkit/client";
import { inputRequired, ServerBuilder } from "mcpkit/server";

export const server = new ServerBuilder({ serverInfo: { name: "travel", version: "1.0.0" } })
  .tool({ name: "plan-trip", inputSchema: { type: "object" } }, (_args, ctx) => {
    // Answers are the client's word: check their shape before using them.
    const city = ctx.inputResponses?.city as ElicitResult | undefined;
    const idea = ctx.inputResponses?.idea as CreateMessageResult | undefined;
    const where = city?.action === "accept" ? city.content?.city : undefined;
    const sampled = idea?.content === undefined ? undefined : [idea.content].flat()[0];
    if (typeof where !== "string" || sampled?.type !== "text") {
      // Ask both at once; the handler is called again with the answers in ctx.inputResponses.
      return inputRequired({
        city: {
          method: "elicitation/create",
          params: {
            message: "Where to?",
            requestedSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        },
        idea: {
          method: "sampling/createMessage",
          params: {
            messages: [{ role: "user", content: { type: "text", text: "One thing to do on a city trip" } }],
            maxTokens: 50,
          },
        },
      });
    }
    return { content: [{ type: "text", text: `${where}: ${sampled.text}` }] };
  })
  .build();

/** Stands in for a form shown to the user. */
async function askUser(params: ElicitParams, signal: AbortSignal) {
  signal.throwIfAborted();
  return { action: "accept" as const, content: { city: params.message === "Where to?" ? "Lisbon" : "?" } };
}

/** Stands in for an LLM call. */
async function complete(params: CreateMessageParams) {
  const prompt = params.messages[0]?.content;
  const text = prompt && "text" in prompt ? `asked "${prompt.text}": ride tram 28` : "?";
  return { role: "assistant" as const, content: { type: "text" as const, text }, model: "stub-model" };
}

/** One call per era; returns one line per call. */
export async function main(): Promise<string[]> {
  const lines: string[] = [];
  for (const era of ["2026-07-28", "2025-11-25"] satisfies Era[]) {
    const [clientSide, serverSide] = createInProcessPair();
    await server.connect(serverSide);
    let asked = 0;
    const client = new Client({
      transport: clientSide,
      clientInfo: { name: "callbacks-demo", version: "1.0.0" },
      protocolVersion: era,
      // What the client can answer: a request the client did not declare is refused without calling anything.
      capabilities: { elicitation: {}, sampling: {} },
      onElicitation: (params, { signal }) => {
        asked++;
        return askUser(params, signal);
      },
      onSampling: (params) => {
        asked++;
        return complete(params);
      },
    });
    await client.connect();
    const result = await client.callTool("plan-trip", {});
    await client.close();
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    lines.push(`${era}: ${text} (${asked} callbacks)`);
  }
  return lines;
}
