// Two small server plugins (docs/plugins.md): a per-tool rate limit and an audit log, on one server that a client
// calls in both wire eras.
import { createInProcessPair, type Era, JsonRpcError } from "mcpkit";
import { Client } from "mcpkit/client";
import { type PluginCall, ServerBuilder, type ServerPlugin } from "mcpkit/server";

/** Options of {@link toolRateLimit}. */
export interface RateLimitOptions {
  /** Calls each tool may take per window, by tool name; tools not named are not limited. */
  limits: { [tool: string]: number };
  /** The window, in ms (default 60,000). */
  windowMs?: number;
  /** The clock (default `Date.now`); tests pass a fake one. */
  now?: () => number;
}

/**
 * Refuses a `tools/call` past its tool's limit in the current window with `-32603` "Rate limit exceeded"
 * (`data.retryAfterMs`), before the call takes a handler slot. One counter per limited tool, so it is bounded.
 */
export function toolRateLimit(options: RateLimitOptions): ServerPlugin {
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    name: "example/tool-rate-limit",
    admit(call: PluginCall) {
      if (call.method !== "tools/call") return;
      const tool = call.params.name;
      if (typeof tool !== "string" || !Object.hasOwn(options.limits, tool)) return;
      const limit = options.limits[tool] as number;
      const at = now();
      let window = windows.get(tool);
      if (window === undefined || at - window.start >= windowMs) {
        window = { start: at, count: 0 };
        windows.set(tool, window);
      }
      if (window.count >= limit) {
        throw new JsonRpcError(-32603, "Rate limit exceeded", {
          reason: "rate_limited",
          tool,
          retryAfterMs: window.start + windowMs - at,
        });
      }
      window.count++;
    },
  };
}

/** One line of the audit log. */
export interface AuditEntry {
  era: Era;
  method: string;
  tool?: string;
  outcome: "result" | "error";
}

/** Records every request's method and outcome (and its tool), keeping the last `max` entries. */
export function auditLog(entries: AuditEntry[], max = 1000): ServerPlugin {
  return {
    name: "example/audit-log",
    response(response, call) {
      const entry: AuditEntry = {
        era: call.era,
        method: call.method,
        outcome: "error" in response ? "error" : "result",
      };
      if (typeof call.params.name === "string" && call.method === "tools/call") entry.tool = call.params.name;
      entries.push(entry);
      if (entries.length > max) entries.shift();
      return undefined;
    },
  };
}

/** Calls a tool limited to 2 calls a window three times in each era, and returns the audit log's lines. */
export async function main(): Promise<string[]> {
  const entries: AuditEntry[] = [];
  let clock = 0;
  const server = new ServerBuilder({
    serverInfo: { name: "plugins-example", version: "1.0.0" },
    plugins: [toolRateLimit({ limits: { echo: 2 }, now: () => clock }), auditLog(entries)],
  })
    .tool({ name: "echo", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "ok" }],
    }))
    .build();
  const lines: string[] = [];
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    clock += 60_000;
    const [clientSide, serverSide] = createInProcessPair();
    await server.connect(serverSide);
    const client = new Client({
      transport: clientSide,
      clientInfo: { name: "example", version: "1.0.0" },
      protocolVersion: era,
    });
    await client.connect();
    for (let i = 0; i < 3; i++) {
      try {
        await client.callTool("echo", {});
        lines.push(`${era} echo #${i + 1}: ok`);
      } catch (error) {
        lines.push(`${era} echo #${i + 1}: ${(error as JsonRpcError).message}`);
      }
    }
    await client.close();
  }
  await server.close();
  const calls = entries.filter((entry) => entry.method === "tools/call");
  lines.push(`audit: ${calls.map((entry) => `${entry.era} ${entry.tool} ${entry.outcome}`).join(", ")}`);
  return lines;
}
