import { createInProcessPair } from "mcpkit";
import { Client } from "mcpkit/client";
import { ServerBuilder } from "mcpkit/server";

// A server with one tool, built once and frozen.
export const server = new ServerBuilder({ serverInfo: { name: "calculator", version: "1.0.0" } })
  .tool(
    {
      name: "add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
    ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }),
  )
  .build();

// A client that talks to it in the same process. connect() prefers 2026-07-28 and falls back to 2025-11-25.
export async function main(): Promise<string> {
  const [clientTransport, serverTransport] = createInProcessPair();
  await server.connect(serverTransport);
  const client = new Client({
    transport: clientTransport,
    clientInfo: { name: "quickstart", version: "1.0.0" },
  });
  const info = await client.connect();
  const { tools } = await client.listTools();
  const result = await client.callTool("add", { a: 20, b: 22 });
  await client.close();
  const answer = result.content[0]?.type === "text" ? result.content[0].text : "";
  return `${info.protocolVersion}: ${tools.map((t) => t.name).join(", ")} -> ${answer}`;
}
