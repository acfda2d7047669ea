// The low-level server API: createServer() with a ServerHandler, one callback per method, cursors of your own.
// Here the tools come from a table (a database, a plugin registry...) and are listed three at a time.
import { createInProcessPair, JsonRpcError, type Tool } from "mcpkit";
import { Client } from "mcpkit/client";
import { createServer, invalidParams, type ServerHandler } from "mcpkit/server";

const UNITS: { readonly [unit: string]: number } = {
  mm: 0.001,
  cm: 0.01,
  m: 1,
  km: 1000,
  in: 0.0254,
  ft: 0.3048,
};
const PAGE = 3;

const tools: Tool[] = Object.keys(UNITS).map((unit) => ({
  name: `to-${unit}`,
  description: `Converts metres to ${unit}`,
  inputSchema: { type: "object", properties: { metres: { type: "number" } }, required: ["metres"] },
}));

// A cursor is opaque to the client; this one names the next index. A cursor this server did not make is refused
// with -32602, as the spec asks.
const encodeCursor = (index: number) => `units:${index}`;
function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const index = Number(/^units:(\d{1,6})$/.exec(cursor)?.[1] ?? Number.NaN);
  if (!(index <= tools.length)) throw invalidParams("Invalid cursor");
  return index;
}

const handler: ServerHandler = {
  listTools({ cursor }) {
    const start = decodeCursor(cursor);
    const end = start + PAGE;
    return {
      tools: tools.slice(start, end),
      ...(end < tools.length ? { nextCursor: encodeCursor(end) } : {}),
    };
  },
  callTool({ name, arguments: args }, ctx) {
    const factor = UNITS[name.replace(/^to-/, "")];
    if (factor === undefined || !name.startsWith("to-")) throw invalidParams(`Unknown tool: ${name}`);
    const metres = args.metres;
    if (typeof metres !== "number")
      return { content: [{ type: "text", text: "metres must be a number" }], isError: true };
    return {
      content: [{ type: "text", text: `${metres / factor}` }],
      structuredContent: { value: metres / factor, era: ctx.era },
    };
  },
};

export const server = createServer({ serverInfo: { name: "units", version: "1.0.0" }, handler });

/** Lists every tool page by page, calls one, and shows a bad cursor being refused. */
export async function main(): Promise<string[]> {
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({
    transport: clientSide,
    clientInfo: { name: "units-client", version: "1.0.0" },
  });
  await client.connect();
  const lines: string[] = [];
  const first = await client.listTools();
  lines.push(
    `page 1: ${first.tools.map((t) => t.name).join(", ")} (next: ${first.nextCursor !== undefined})`,
  );
  const all = await client.listAllTools();
  lines.push(`all: ${all.length} tools`);
  const result = await client.callTool("to-km", { metres: 42_195 });
  lines.push(`42195 m = ${result.content[0]?.type === "text" ? result.content[0].text : "?"} km`);
  try {
    await client.listTools({ cursor: "not-ours" });
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    lines.push(`bad cursor: ${error.code} ${error.message}`);
  }
  await client.close();
  return lines;
}
