import { createInProcessPair } from "mcpkit";
import { Client } from "mcpkit/client";
import { ServerBuilder } from "mcpkit/server";
import * as z from "zod";

// A tool typed by zod 4 schemas: `a` and `b` are numbers in the function, and `structuredContent` must be a
// `{ sum: number }`. The client sees the JSON Schema 2020-12 that zod produces, and bad arguments never reach
// the function: they come back as an `isError` result that names every failing path.
export const server = new ServerBuilder({ serverInfo: { name: "typed-zod", version: "1.0.0" } })
  .tool(
    {
      name: "add",
      description: "Adds two numbers",
      inputSchema: z.object({
        a: z.number().describe("first addend"),
        b: z.number().describe("second addend"),
      }),
      outputSchema: z.object({ sum: z.number() }),
    },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }),
  )
  .prompt(
    { name: "explain", argsSchema: z.object({ topic: z.string().describe("What to explain") }) },
    ({ topic }) => ({ messages: [{ role: "user", content: { type: "text", text: `Explain ${topic}` } }] }),
  )
  .build();

export async function main(): Promise<string[]> {
  const [clientTransport, serverTransport] = createInProcessPair();
  await server.connect(serverTransport);
  // validateStructuredContent: the client also checks results against the outputSchema it listed.
  const client = new Client({
    transport: clientTransport,
    clientInfo: { name: "typed-zod-client", version: "1.0.0" },
    validateStructuredContent: true,
  });
  await client.connect();
  const { tools } = await client.listTools();
  const good = await client.callTool("add", { a: 20, b: 22 });
  const bad = await client.callTool("add", { a: "20" });
  await client.close();
  const text = (result: typeof good) => (result.content[0]?.type === "text" ? result.content[0].text : "");
  return [
    `inputSchema: ${JSON.stringify(tools[0]?.inputSchema.properties)}`,
    `add(20, 22) = ${text(good)}, structuredContent ${JSON.stringify(good.structuredContent)}`,
    `add("20") -> isError ${bad.isError}: ${text(bad)}`,
  ];
}
