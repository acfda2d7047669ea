import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { createInProcessPair } from "mcpkit";
import { Client } from "mcpkit/client";
import { ServerBuilder } from "mcpkit/server";
import * as v from "valibot";

// Valibot schemas implement Standard Schema; `toStandardJsonSchema` adds Standard JSON Schema, which mcpkit
// needs to send the tool's JSON Schema. The function's `query` and `limit` are typed from the schema, and
// `limit` gets its default from Valibot before the function runs.
const SearchInput = toStandardJsonSchema(
  v.object({
    query: v.pipe(v.string(), v.minLength(1), v.description("Words to look for")),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 3),
  }),
);

const WORDS = ["alpha", "alphabet", "alpine", "beta", "alps"];

export const server = new ServerBuilder({ serverInfo: { name: "typed-valibot", version: "1.0.0" } })
  .tool({ name: "search", inputSchema: SearchInput }, ({ query, limit }) => {
    const hits = WORDS.filter((word) => word.startsWith(query)).slice(0, limit);
    return { content: [{ type: "text", text: hits.join(", ") }] };
  })
  .build();

export async function main(): Promise<string[]> {
  const [clientTransport, serverTransport] = createInProcessPair();
  await server.connect(serverTransport);
  const client = new Client({
    transport: clientTransport,
    clientInfo: { name: "typed-valibot", version: "1.0.0" },
  });
  await client.connect();
  const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text ?? "";
  const found = await client.callTool("search", { query: "al" });
  const refused = await client.callTool("search", { query: "", limit: 0 });
  await client.close();
  return [`search("al") = ${text(found)}`, `search("", 0) -> isError ${refused.isError}: ${text(refused)}`];
}
