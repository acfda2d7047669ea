/**
 * The server most tests talk to, in process and (test/fixtures/stdio-server/fixture-server.ts, compiled by
 * test/support/fixture-build.ts) as a stdio subprocess: one source for both.
 */

// Through the package name: the sources in the tests (vitest.config.ts aliases), the built package in the stdio
// fixture compiled from this file.
import type { JsonValue } from "mcpkit";
import {
  type BuilderOptions,
  type Server,
  ServerBuilder,
  type ToolDefinition,
  type ToolResult,
} from "mcpkit/server";

/** Options of the fixture server; everything in {@link BuilderOptions} except `serverInfo` is passed on. */
export type FixtureOptions = Partial<BuilderOptions>;

/** Values `structured` returns for its `kind` argument: each must survive the wire as itself. */
export const STRUCTURED_VALUES: { [kind: string]: JsonValue } = {
  false: false,
  zero: 0,
  empty: "",
  array: [],
  null: null,
  object: { nested: { deep: [1, "two", null] } },
};

/** What the fixture server logged (handler crashes and the like), newest last; tests may inspect it. */
export const fixtureLog: { level: "warn" | "error"; message: string; details: unknown }[] = [];

const quietLogger = {
  warn: (message: string, details?: unknown) => record("warn", message, details),
  error: (message: string, details?: unknown) => record("error", message, details),
};

function record(level: "warn" | "error", message: string, details: unknown): void {
  fixtureLog.push({ level, message, details });
  if (fixtureLog.length > 100) fixtureLog.shift();
}

/**
 * The server most tests talk to: a few tools, resources, a template and prompts that exercise every method and
 * edge (errors, slow handlers, progress, logging, structured content).
 */
export function fixtureServer(options: FixtureOptions = {}): Server {
  return fixtureBuilder(options).build();
}

/** The builder of {@link fixtureServer}, before `build()`: a fixture with more to register starts here. */
export function fixtureBuilder(options: FixtureOptions = {}): ServerBuilder {
  return new ServerBuilder({
    serverInfo: { name: "fixture", version: "1.2.3" },
    instructions: "Fixture server for mcpkit tests.",
    logger: quietLogger,
    ...options,
  })
    .tool(
      {
        name: "add",
        description: "Adds two numbers",
        inputSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
          $defs: { unused: { $ref: "#/$defs/unused" } },
        },
        // An extension member the authoring type does not name: a variable or a cast lets it through.
        "x-vendor": { keep: true },
      } as ToolDefinition,
      ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }),
    )
    .tool(
      {
        name: "structured",
        inputSchema: { type: "object", properties: { kind: { type: "string" } } },
        outputSchema: {},
      },
      ({ kind }) => {
        const key = String(kind);
        // An unknown kind breaks the outputSchema promise on purpose: the server must refuse to send it.
        if (!(key in STRUCTURED_VALUES)) return { content: [{ type: "text", text: "absent" }] };
        return {
          content: [{ type: "text", text: JSON.stringify(STRUCTURED_VALUES[key]) }],
          structuredContent: STRUCTURED_VALUES[key] as JsonValue,
          "x-extra": { survives: true },
        } as ToolResult;
      },
    )
    .tool({ name: "fail", inputSchema: { type: "object" } }, () => {
      throw new Error("tool exploded");
    })
    .tool({ name: "slow", inputSchema: { type: "object" } }, (_args, context) => {
      return new Promise<ToolResult>((resolve, reject) => {
        const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "finished" }] }), 60_000);
        context.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        });
      });
    })
    .tool({ name: "chatty", inputSchema: { type: "object" } }, async (_args, context) => {
      await context.progress(1, 2, "half");
      await context.log("debug", "debug detail");
      await context.log("info", { step: "working" }, "fixture");
      await context.progress(2, 2);
      return { content: [{ type: "text", text: `era ${context.era}` }] };
    })
    .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, context) => ({
      content: [
        { type: "text", text: JSON.stringify({ identity: context.identity ?? null, era: context.era }) },
      ],
    }))
    .resource({ uri: "test://static-text", name: "static-text", mimeType: "text/plain" }, (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "hello" }],
    }))
    .resource({ uri: "test://static-binary", name: "static-binary", mimeType: "image/png" }, (uri) => ({
      contents: [{ uri, mimeType: "image/png", blob: "iVBORw0KGgo=" }],
    }))
    .resourceTemplate(
      { uriTemplate: "test://items/{id}/data", name: "item" },
      (uri, { id }) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id }) }] }),
      { complete: { id: (value) => ["alpha", "beta", "gamma"].filter((v) => v.startsWith(value)) } },
    )
    .prompt({ name: "simple", description: "A simple prompt" }, () => ({
      messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
    }))
    .prompt(
      {
        name: "greet",
        arguments: [
          { name: "name", required: true },
          { name: "tone", required: false },
        ],
      },
      ({ name, tone }) => ({
        description: "greeting",
        messages: [{ role: "user", content: { type: "text", text: `Greet ${name} ${tone ?? "warmly"}` } }],
      }),
      { complete: { tone: (value) => ["warmly", "formally", "wryly"].filter((v) => v.startsWith(value)) } },
    );
}
