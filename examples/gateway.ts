// A gateway in front of two MCP servers from npm (run over stdio, each in the era it speaks), served over
// Streamable HTTP; a client calls both through the one endpoint. On the command line the same is
// `mcpkit gateway --config gateway.json` with the mcpServers below in the file.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "mcpkit/client";
import { createGateway, type GatewayPlugin } from "mcpkit/gateway";
import { StreamableHttpClientTransport } from "mcpkit/http";
import { serve } from "mcpkit/node";

// A desktop client's config would say `"command": "npx", "args": ["-y", "@modelcontextprotocol/server-..."]`;
// here the installed packages are run directly.
const program = (pkg: string) => fileURLToPath(import.meta.resolve(`${pkg}/dist/index.js`));

export async function main(): Promise<string[]> {
  const server = createGateway({
    config: {
      mcpServers: {
        everything: { command: process.execPath, args: [program("@modelcontextprotocol/server-everything")] },
        memory: {
          command: process.execPath,
          args: [program("@modelcontextprotocol/server-memory")],
          env: { MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), "gateway-example-")), "memory.jsonl") },
          tools: { allow: ["create_*", "read_graph"] },
        },
      },
    },
  });
  const handle = await serve(server);
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url: handle.url }),
    clientInfo: { name: "example", version: "1.0.0" },
  });
  try {
    await client.connect();
    const tools = (await client.listAllTools()).map((tool) => tool.name);
    const echo = await client.callTool("everything__echo", { message: "through the gateway" });
    await client.callTool("memory__create_entities", {
      entities: [{ name: "gateway", entityType: "example", observations: ["it works"] }],
    });
    const graph = await client.callTool("memory__read_graph", {});
    const gateway = server.plugin("gateway") as GatewayPlugin;
    return [
      `memory tools: ${tools.filter((name) => name.startsWith("memory__")).join(", ")}`,
      `echo: ${(echo.content[0] as { text: string }).text}`,
      `graph has gateway: ${JSON.stringify(graph.content).includes("it works")}`,
      `upstreams: ${gateway
        .status()
        .map((s) => `${s.name} ${s.state}`)
        .join(", ")}`,
    ];
  } finally {
    await client.close();
    await handle.close();
    await server.close();
  }
}
