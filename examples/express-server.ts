// The mcpkit Streamable HTTP handler mounted in Express 5, next to an ordinary JSON API.
//
// toNodeHandler() reads the request body itself, bounded by the handler's maxBodyBytes, so the MCP route is
// mounted without express.json() in front of it; JSON parsing is applied only to the app's own routes.
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Client } from "mcpkit/client";
import { createHttpHandler, StreamableHttpClientTransport } from "mcpkit/http";
import { toNodeHandler } from "mcpkit/node";
import { ServerBuilder } from "mcpkit/server";

export const server = new ServerBuilder({ serverInfo: { name: "express-demo", version: "1.0.0" } })
  .tool(
    {
      name: "add",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
    ({ a, b }, ctx) => ({ content: [{ type: "text", text: `${Number(a) + Number(b)} (${ctx.era})` }] }),
  )
  .build();

export const mcp = createHttpHandler(server); // Host and Origin checks default to loopback

export const app = express();
app.all("/mcp", toNodeHandler(mcp));
app.post("/api/echo", express.json(), (req, res) => {
  res.json({ echoed: req.body });
});

/** Serves the app on 127.0.0.1 (a free port), calls the tool once per era, and shuts everything down. */
export async function main(): Promise<string[]> {
  const http = createHttpServer(app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/mcp`;
  const lines: string[] = [];
  try {
    for (const era of ["2026-07-28", "2025-11-25"] as const) {
      const client = new Client({
        transport: new StreamableHttpClientTransport({ url }),
        clientInfo: { name: "express-client", version: "1.0.0" },
        protocolVersion: era,
      });
      await client.connect();
      const result = await client.callTool("add", { a: 2, b: 3 });
      await client.close();
      lines.push(`add: ${result.content[0]?.type === "text" ? result.content[0].text : "?"}`);
    }
    const api = await fetch(`http://127.0.0.1:${port}/api/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hello: "express" }),
    });
    lines.push(`api: ${JSON.stringify(await api.json())}`);
  } finally {
    await mcp.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
  return lines;
}
