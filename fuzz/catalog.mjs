/**
 * What the fuzz target server offers, as plain data: `server.mjs` builds its tools, prompts and resources from
 * it, the generators pick names and arguments from it, and the oracles read the same declarations to say what a
 * call must answer. Nothing here comes from mcpkit.
 */

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

/** Tools: their input schemas, and what a call with valid arguments answers (`ok`, `tool-error`, `big`). */
export const TOOLS = {
  echo: {
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    outcome: "ok",
  },
  add: {
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    outcome: "ok",
  },
  fail: { inputSchema: { type: "object" }, outcome: "tool-error" },
  sleep: {
    inputSchema: {
      type: "object",
      properties: { ms: { type: "integer", minimum: 0, maximum: 10_000 } },
      required: ["ms"],
    },
    outcome: "ok",
  },
  big: {
    inputSchema: {
      type: "object",
      properties: { bytes: { type: "integer", minimum: 0, maximum: 4_000_000 } },
      required: ["bytes"],
    },
    outcome: "big",
  },
  region: {
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        count: { type: "integer", "x-mcp-header": "Count" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
      },
    },
    outcome: "ok",
  },
};

/** Prompts and their arguments. */
export const PROMPTS = {
  greet: { arguments: [{ name: "name", required: true }, { name: "tone" }] },
  plain: { arguments: [] },
};

/** Fixed resources, and the one template (`{id}` matches one path segment). */
export const RESOURCES = ["fuzz://static", "fuzz://other"];
export const TEMPLATE = "fuzz://items/{id}";
export const TEMPLATE_PREFIX = "fuzz://items/";

/** Values the completion of `greet`'s `name` argument offers. */
export const NAMES = ["alice", "bob", "carol"];

/** The logging levels of MCP. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Limits the fuzz servers run with (the stdio ones are mcpkit's defaults; HTTP's are lowered to fuzz fast). */
export const LIMITS = {
  stdioMaxFrameBytes: 1_000_000,
  stdioMaxOutboundFrameBytes: 1_000_000,
  httpMaxBodyBytes: 262_144,
  httpMaxResponseBytes: 262_144,
};
