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
    async ({ a, b }, ctx) => {
      // Progress reaches a caller that asked for it (onProgress below); for the others it is a no-op.
      await ctx.progress(1, 2, "adding");
      const sum = Number(a) + Number(b);
      await ctx.progress(2, 2, "done");
      return { content: [{ type: "text", text: String(sum) }] };
    },
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
  const steps: string[] = [];
  const result = await client.callTool(
    "add",
    { a: 20, b: 22 },
    { onProgress: ({ progress, total, message }) => steps.push(`${progress}/${total} ${message}`) },
  );
  await client.close();
  const answer = result.content[0]?.type === "text" ? result.content[0].text : "";
  const names = tools.map((t) => t.name).join(", ");
  return `${info.protocolVersion}: ${names} -> ${answer} (progress: ${steps.join(", ")})`;
}
