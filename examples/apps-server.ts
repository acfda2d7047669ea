// An MCP Apps server: two app tools whose results a host renders with an HTML view (a `ui://` resource), served
// over Streamable HTTP. `roll` is for the model and the view; `reroll` is app-only: the view calls it, the model
// never sees it. Hosts without Apps still get a text result.
import { fileURLToPath } from "node:url";
import { APP_MIME_TYPE, appTool, defineApp, resolveApp, uiClientCapability } from "mcpkit/apps";
import { Client } from "mcpkit/client";
import { createHttpHandler, StreamableHttpClientTransport } from "mcpkit/http";
import { serve } from "mcpkit/node";
import { type Server, ServerBuilder } from "mcpkit/server";

/** The view every app of this server shows until a real one is given (examples/apps-host/ builds real ones). */
export const PLACEHOLDER_VIEW = "<!doctype html><title>dice</title><p>a dice view</p>";

const sidesSchema = {
  type: "object",
  properties: { sides: { type: "integer", minimum: 2, maximum: 100 } },
} as const;

/** The dice server: `roll` (model and app) and `reroll` (app only), both showing `viewHtml`. */
export function appsServer(viewHtml = PLACEHOLDER_VIEW): Server {
  // Real views are single bundled documents of several MB.
  const limits = { resourceBytes: 8_000_000 };
  const rollApp = defineApp({
    limits,
    tool: { name: "roll", description: "Roll a die and show it", inputSchema: sidesSchema },
    resource: { uri: "ui://dice/roll", name: "dice" },
    content: { text: viewHtml, _meta: { ui: { prefersBorder: true } } },
  });
  const rerollApp = defineApp({
    limits,
    tool: { name: "reroll", description: "Roll again (from the view)", inputSchema: sidesSchema },
    visibility: ["app"],
    resource: { uri: "ui://dice/reroll", name: "dice again" },
    content: { text: viewHtml },
  });
  let rolls = 0;
  // Deterministic dice (1, 2, 3, ...), so the example and its tests can check what is shown.
  const roll = (sides: number) => (rolls++ % sides) + 1;
  const builder = new ServerBuilder({ serverInfo: { name: "dice-server", version: "1.0.0" } });
  for (const app of [rollApp, rerollApp]) {
    appTool(builder, app, (args) => {
      const value = roll(Number((args as { sides?: number }).sides ?? 6));
      return { content: [{ type: "text", text: `rolled ${value}` }], structuredContent: { value } };
    });
  }
  return builder.build();
}

/** Serves the dice server on 127.0.0.1 and, as a host would, resolves its views and calls its tools. */
export async function main(): Promise<string[]> {
  const server = appsServer();
  const handler = createHttpHandler(server);
  const running = await serve(handler, { host: "127.0.0.1", port: 0, path: "/mcp" });
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url: running.url }),
    clientInfo: { name: "apps-host", version: "1.0.0" },
    capabilities: { extensions: uiClientCapability() },
  });
  const lines: string[] = [];
  try {
    await client.connect();
    for (const tool of await client.listAllTools()) {
      const app = await resolveApp(client, tool); // one resources/read, every rule of the spec checked
      const result = await client.callTool(tool.name, { sides: 6 });
      const text = result.content[0]?.type === "text" ? result.content[0].text : "";
      lines.push(
        `${tool.name}: ${app.resourceUri} (${app.visibility.join("+")}, ${APP_MIME_TYPE}) -> ${text}`,
      );
    }
  } finally {
    await client.close();
    await running.close();
    await handler.close();
    await server.close();
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main()) console.log(line);
}
