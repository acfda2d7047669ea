/**
 * Typed tools and validation by default: Standard Schema tools (zod 4, Valibot, ArkType) and raw JSON Schema
 * tools, in both eras, through an mcpkit client over the validating in-process pair.
 */
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { Client } from "../src/client/client.js";
import { JsonRpcError } from "../src/jsonrpc/errors.js";
import type { Era } from "../src/protocol/versions.js";
import { type BuilderOptions, ServerBuilder } from "../src/server/authoring/builder.js";
import type { Server } from "../src/server/server.js";
import { LEGACY, MODERN, textOf } from "./support/interop-helpers.js";
import { useWireValidation, validatingPair } from "./support/validating-transport.js";

useWireValidation();

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(server: Server, era: Era, options: { validateStructuredContent?: boolean } = {}) {
  const pair = validatingPair({ era });
  await server.connect(pair.server);
  const client = new Client({
    transport: pair.client,
    clientInfo: { name: "typed-test", version: "1.0.0" },
    protocolVersion: era,
    ...options,
  });
  closers.push(() => client.close());
  await client.connect();
  return client;
}

const ADD_RAW = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
} as const;

function builder(options: Partial<BuilderOptions> = {}) {
  return new ServerBuilder({ serverInfo: { name: "typed", version: "1.0.0" }, ...options });
}

const invalid = (tool: string, ...lines: string[]) =>
  `Invalid arguments for tool "${tool}":\n${lines.join("\n")}`;

describe.each([{ era: MODERN }, { era: LEGACY }])("raw JSON Schema tools, $era", ({ era }) => {
  it("answers a type mismatch, missing members and an extra member with isError, without running the tool", async () => {
    const ran = vi.fn();
    const server = builder()
      .tool({ name: "add", inputSchema: ADD_RAW }, ({ a, b }) => {
        ran();
        return { content: [{ type: "text", text: String(Number(a) + Number(b)) }] };
      })
      .build();
    const client = await connect(server, era);
    const mistyped = await client.callTool("add", { a: "1", b: 2 });
    expect(mistyped).toMatchObject({ isError: true });
    expect(textOf(mistyped)).toBe(invalid("add", "/a: expected number, got string"));
    expect(textOf(await client.callTool("add", {}))).toBe(invalid("add", "/a: required", "/b: required"));
    expect(textOf(await client.callTool("add", { a: 1, b: 2, c: 3 }))).toBe(
      invalid("add", "/c: unexpected property"),
    );
    expect(ran).not.toHaveBeenCalled();
    expect(textOf(await client.callTool("add", { a: 1, b: 2 }))).toBe("3");
    expect(ran).toHaveBeenCalledTimes(1);
  });

  it("names nested paths and checks 2020-12 keywords: $defs/$ref, prefixItems, unevaluatedProperties, enum", async () => {
    const inputSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { tag: { type: "string", minLength: 1 } },
      properties: {
        owner: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        tags: { type: "array", items: { $ref: "#/$defs/tag" } },
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
        mode: { enum: ["fast", "slow"] },
        "a/b": { type: "integer" },
      },
      unevaluatedProperties: false,
    };
    const server = builder()
      .tool({ name: "rich", inputSchema }, () => ({ content: [{ type: "text", text: "ran" }] }))
      .build();
    const client = await connect(server, era);
    const result = await client.callTool("rich", {
      owner: { name: 1 },
      tags: ["ok", ""],
      point: [1, "2", 3],
      mode: "medium",
      "a/b": 1.5,
      extra: true,
    });
    expect(result.isError).toBe(true);
    const lines = String(textOf(result)).split("\n").slice(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        "/owner/name: expected string, got number",
        "/tags/1: String is too short (0 < 1)",
        "/point/1: expected number, got string",
        "/point/2: unexpected item",
        "/a~1b: expected integer, got number",
        "/extra: unexpected property",
      ]),
    );
    expect(lines.some((line) => line.startsWith("/mode: "))).toBe(true);
    expect(textOf(await client.callTool("rich", { tags: ["x"], point: [1, 2], mode: "fast" }))).toBe("ran");
  });

  it("checks structuredContent against a raw outputSchema: a mismatch is -32603 and is logged", async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const server = builder({ logger })
      .tool(
        {
          name: "sum",
          inputSchema: { type: "object", properties: { bad: { type: "boolean" } } },
          outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
        },
        ({ bad }) => ({
          content: [{ type: "text", text: "3" }],
          structuredContent: bad === true ? { sum: "3" } : { sum: 3 },
        }),
      )
      .build();
    const client = await connect(server, era);
    expect((await client.callTool("sum", {})).structuredContent).toEqual({ sum: 3 });
    const error = await client.callTool("sum", { bad: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32603, message: "Internal error" });
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(String(logger.error.mock.calls[0]?.[1])).toContain("/sum: expected number, got string");
  });
});

describe("off switches", () => {
  const add = () => ({ content: [{ type: "text" as const, text: "ran" }] });

  it("validate: false on the builder runs the tool with whatever arrived, output unchecked", async () => {
    const server = builder({ validate: false })
      .tool({ name: "add", inputSchema: ADD_RAW }, add)
      .tool(
        { name: "out", inputSchema: { type: "object" }, outputSchema: z.object({ n: z.number() }) },
        () => ({ content: [], structuredContent: { n: "x" } as unknown as { n: number } }),
      )
      .build();
    const client = await connect(server, MODERN);
    expect(textOf(await client.callTool("add", { a: "1" }))).toBe("ran");
    expect((await client.callTool("out", {})).structuredContent).toEqual({ n: "x" });
  });

  it("validate: false on one tool turns off that tool only; validate: true on a tool wins over the builder", async () => {
    const server = builder({ validate: false })
      .tool({ name: "loose", inputSchema: ADD_RAW }, add)
      .tool({ name: "strict", inputSchema: ADD_RAW }, add, { validate: true })
      .build();
    const client = await connect(server, MODERN);
    expect(textOf(await client.callTool("loose", {}))).toBe("ran");
    expect((await client.callTool("strict", {})).isError).toBe(true);
    const other = builder()
      .tool({ name: "loose", inputSchema: ADD_RAW }, add, { validate: false })
      .tool({ name: "strict", inputSchema: ADD_RAW }, add)
      .build();
    const second = await connect(other, LEGACY);
    expect(textOf(await second.callTool("loose", {}))).toBe("ran");
    expect((await second.callTool("strict", {})).isError).toBe(true);
  });

  it("a jsonSchemaValidator of your own replaces the default, and a schema it refuses fails the registration", async () => {
    const seen: unknown[] = [];
    const server = builder({
      jsonSchemaValidator: (schema) => (value) => {
        seen.push([schema, value]);
        return [{ path: "/custom", message: "refused" }];
      },
    })
      .tool({ name: "add", inputSchema: ADD_RAW }, add)
      .build();
    const client = await connect(server, MODERN);
    expect(textOf(await client.callTool("add", { a: 1, b: 2 }))).toBe(invalid("add", "/custom: refused"));
    expect(seen).toEqual([[ADD_RAW, { a: 1, b: 2 }]]);
    const refusing = builder({
      jsonSchemaValidator: () => {
        throw new Error("cannot compile");
      },
    });
    expect(() => refusing.tool({ name: "add", inputSchema: ADD_RAW }, add)).toThrow(/cannot compile/);
  });
});

const LIBRARIES = [
  {
    name: "zod 4",
    input: z.object({
      a: z.number().describe("first"),
      b: z.number().default(10),
      nested: z.object({ x: z.string() }).optional(),
    }),
    output: z.object({ sum: z.number() }),
  },
  {
    name: "valibot",
    input: toStandardJsonSchema(
      v.object({
        a: v.pipe(v.number(), v.description("first")),
        b: v.optional(v.number(), 10),
        nested: v.optional(v.object({ x: v.string() })),
      }),
    ),
    output: toStandardJsonSchema(v.object({ sum: v.number() })),
  },
  {
    name: "arktype",
    input: type({ a: type("number").describe("first"), "b?": "number", "nested?": { x: "string" } }),
    output: type({ sum: "number" }),
  },
];

describe.each(LIBRARIES)("Standard Schema tools: $name", ({ input, output }) => {
  it.each([{ era: MODERN }, { era: LEGACY }])(
    "sends JSON Schema 2020-12, validates with the library, $era",
    async ({ era }) => {
      const logger = { warn: vi.fn(), error: vi.fn() };
      const server = builder({ logger })
        .tool({ name: "add", description: "Adds", inputSchema: input, outputSchema: output }, (args) => {
          const { a, b } = args as { a: number; b?: number };
          return {
            content: [{ type: "text", text: String(a + (b ?? 10)) }],
            structuredContent: { sum: a + (b ?? 10) },
          };
        })
        .tool({ name: "broken", inputSchema: input, outputSchema: output }, () => ({
          content: [],
          structuredContent: { sum: "no" } as unknown as { sum: number },
        }))
        .build();
      const client = await connect(server, era, { validateStructuredContent: true });
      const { tools } = await client.listTools();
      const add = tools.find((tool) => tool.name === "add");
      expect(add?.inputSchema).toMatchObject({
        type: "object",
        properties: { a: { type: "number", description: "first" }, b: { type: "number" } },
        required: ["a"],
      });
      expect(add?.outputSchema).toMatchObject({ type: "object", properties: { sum: { type: "number" } } });
      expect(await client.callTool("add", { a: 1, b: 2 })).toMatchObject({ structuredContent: { sum: 3 } });
      const bad = await client.callTool("add", { a: "1", nested: { x: 1 } });
      expect(bad.isError).toBe(true);
      const lines = String(textOf(bad)).split("\n");
      expect(lines[0]).toBe('Invalid arguments for tool "add":');
      expect(lines.slice(1).map((line) => line.split(":")[0])).toEqual(["/a", "/nested/x"]);
      await expect(client.callTool("broken", { a: 1 })).rejects.toMatchObject({ code: -32603 });
      expect(String(logger.error.mock.calls[0]?.[1])).toMatch(
        /^Error: tool "broken" returned structuredContent .*\n\/sum: /,
      );
    },
  );
});

describe("Standard Schema outputs", () => {
  it("sends what the output schema produced (zod strips unknown members) and types structuredContent", async () => {
    const server = builder()
      .tool({ name: "point", inputSchema: z.object({}), outputSchema: z.object({ x: z.number() }) }, () => ({
        content: [],
        structuredContent: { x: 1, secret: "dropped" } as { x: number },
      }))
      .build();
    const client = await connect(server, MODERN);
    expect((await client.callTool("point", {})).structuredContent).toEqual({ x: 1 });
  });

  it("refuses a Standard Schema without Standard JSON Schema, and a non-object input schema", () => {
    const bare = { "~standard": { version: 1, vendor: "bare", validate: (value: unknown) => ({ value }) } };
    expect(() => builder().tool({ name: "t", inputSchema: bare as never }, () => ({ content: [] }))).toThrow(
      /does not implement Standard JSON Schema/,
    );
    expect(() => builder().tool({ name: "t", inputSchema: z.string() }, () => ({ content: [] }))).toThrow(
      /"type": "object"/,
    );
  });
});

describe("typed prompts", () => {
  it.each([{ era: MODERN }, { era: LEGACY }])(
    "derives arguments from argsSchema and validates them, $era",
    async ({ era }) => {
      const server = builder()
        .prompt(
          {
            name: "review",
            argsSchema: z.object({
              file: z.string().describe("Path"),
              depth: z.enum(["quick", "deep"]).optional(),
            }),
          },
          ({ file, depth }) => ({
            messages: [
              { role: "user", content: { type: "text", text: `Review ${file} ${depth ?? "quick"}` } },
            ],
          }),
        )
        .build();
      const client = await connect(server, era);
      const { prompts } = await client.listPrompts();
      expect(prompts[0]?.arguments).toEqual([
        { name: "file", required: true, description: "Path" },
        { name: "depth", required: false },
      ]);
      const { messages } = await client.getPrompt("review", { file: "a.ts", depth: "deep" });
      expect(messages[0]?.content).toEqual({ type: "text", text: "Review a.ts deep" });
      const error = await client.getPrompt("review", { depth: "wide" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: -32602 });
      expect((error as JsonRpcError).message).toContain("/file:");
      expect((error as JsonRpcError).message).toContain("/depth:");
    },
  );

  it("refuses arguments and argsSchema together", () => {
    expect(() =>
      builder().prompt({ name: "p", arguments: [], argsSchema: z.object({}) }, () => ({ messages: [] })),
    ).toThrow(/both arguments and argsSchema/);
  });
});

describe("client opt-in: validateStructuredContent", () => {
  const lying = () =>
    builder({ validate: false })
      .tool(
        {
          name: "sum",
          inputSchema: { type: "object" },
          outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
        },
        () => ({ content: [], structuredContent: { sum: "three" } }),
      )
      .build();

  it("rejects a result that breaks the listed outputSchema with INVALID_RESULT, in both eras", async () => {
    for (const era of [MODERN, LEGACY] as const) {
      const client = await connect(lying(), era, { validateStructuredContent: true });
      // Not listed yet: nothing to check against.
      expect((await client.callTool("sum", {})).structuredContent).toEqual({ sum: "three" });
      await client.listAllTools();
      const error = await client.callTool("sum", {}).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "INVALID_RESULT", details: { tool: "sum" } });
      expect((error as Error).message).toContain("/sum: expected number, got string");
    }
  });

  it("is off by default", async () => {
    const client = await connect(lying(), MODERN);
    await client.listTools();
    expect((await client.callTool("sum", {})).structuredContent).toEqual({ sum: "three" });
  });
});
