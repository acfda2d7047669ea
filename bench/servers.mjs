/**
 * The servers under test, each with one trivial `add` tool: mcpkit, the official v1 SDK
 * (`@modelcontextprotocol/sdk`) and the official v2 SDK (`@modelcontextprotocol/server`). mcpkit and v2 also
 * serve the same sum as a custom request method, `bench/add` (params `{ a, b }`, result `{ sum }`): mcpkit with
 * `ServerBuilder.request`, v2 with `setRequestHandler`. The mcpkit servers are built from a given build's
 * `mcpkit/server` module (bench/kit.mjs), so that bench/compare.mjs can serve two builds with the same code.
 */
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer as V2McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

const ADD_SCHEMA = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
};

/**
 * Which schema the mcpkit server's `add` declares; either way its arguments are validated on every call, as the
 * official servers validate theirs with zod. `raw` (default): the JSON Schema above, checked by mcpkit's default
 * validator (`@cfworker/json-schema`); `zod`: the official servers' zod schema, checked by zod;
 * `off`: the JSON Schema, not validated (`validate: false`), to see what validation costs.
 */
export const MCPKIT_SCHEMA = process.env.BENCH_MCPKIT_SCHEMA ?? "raw";

/** The custom method `bench/add`, its params checked with the same kind of schema as the `add` tool's. */
function customAdd({ defineRequest }) {
  const handler = ({ a, b }) => ({ sum: Number(a) + Number(b) });
  if (MCPKIT_SCHEMA === "off") return defineRequest(handler);
  const params = MCPKIT_SCHEMA === "zod" ? z.object({ a: z.number(), b: z.number() }) : ADD_SCHEMA;
  return defineRequest({ params }, handler);
}

const addTool = { name: "add", description: "Adds two numbers", inputSchema: ADD_SCHEMA };
const addRaw = ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] });

/**
 * The bench's mcpkit server on `server` (a build's `mcpkit/server` module): `add` and `bench/add`; `plugins` (the
 * otel section's) are passed only when there are some.
 */
export function mcpkitServer(server, plugins = []) {
  const builder = new server.ServerBuilder({
    serverInfo: { name: "bench-mcpkit", version: "1.0.0" },
    validate: MCPKIT_SCHEMA !== "off",
    requests: { "bench/add": customAdd(server) },
    ...(plugins.length > 0 ? { plugins } : {}),
  });
  if (MCPKIT_SCHEMA === "zod") {
    const inputSchema = z.object({ a: z.number(), b: z.number() });
    return builder
      .tool({ ...addTool, inputSchema }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }))
      .build();
  }
  return builder.tool(addTool, addRaw).build();
}

/**
 * The server bench/compare.mjs runs on each of two builds: the `add` tool with the raw JSON Schema, on what
 * every build has (`new ServerBuilder({ serverInfo }).tool(...).build()`). `validate: false` is passed only when
 * asked (`validate === false`), since builds from before argument validation refuse the option.
 */
export function plainServer(server, validate) {
  const options = { serverInfo: { name: "bench-mcpkit", version: "1.0.0" } };
  if (validate === false) options.validate = false;
  return new server.ServerBuilder(options).tool(addTool, addRaw).build();
}

export function v1Server() {
  const server = new V1McpServer({ name: "bench-v1", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return server;
}

export function v2Server() {
  const server = new V2McpServer({ name: "bench-v2", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.server.setRequestHandler(
    "bench/add",
    { params: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ sum: a + b }),
  );
  return server;
}

/** The floor's answer to a `tools/call` of `add` or a `bench/add`: what a server must at least compute and send. */
export function floorAnswer(request) {
  if (request.method === "bench/add") {
    const { a, b } = request.params;
    return { jsonrpc: "2.0", id: request.id, result: { sum: a + b } };
  }
  const { a, b } = request.params.arguments;
  return { jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: String(a + b) }] } };
}
