/**
 * Compile-time tests of the builder's authoring types, checked by `npm run typecheck` (tsconfig.json covers
 * test/): every `@ts-expect-error` below must meet an error, or the type check fails. Nothing here runs.
 */
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import * as z from "zod";
import type { ReadResourceResult } from "../../src/protocol/types/resources.js";
import type { CallToolResult, Tool } from "../../src/protocol/types/tools.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";

const b = new ServerBuilder({ serverInfo: { name: "types", version: "1.0.0" } });
const raw = { type: "object", properties: { a: { type: "number" } } };

// Definitions: a misspelt member is an error.
// @ts-expect-error descripton is not a member of a tool definition
b.tool({ name: "t", descripton: "x", inputSchema: raw }, () => ({ content: [] }));
// @ts-expect-error argumnets is not a member of a prompt definition
b.prompt({ name: "p", argumnets: [] }, () => ({ messages: [] }));
// @ts-expect-error mimetype is not a member of a resource definition (mimeType is)
b.resource({ uri: "a://b", name: "b", mimetype: "text/plain" }, (uri) => ({ contents: [{ uri, text: "" }] }));
// @ts-expect-error uriTemplat is not a member of a template definition
b.resourceTemplate({ uriTemplat: "a://{x}", uriTemplate: "a://{x}", name: "x" }, (uri) => ({
  contents: [{ uri, text: "" }],
}));

// Results: a misspelt member is an error, sync or async.
// @ts-expect-error isErorr is not a member of a tool result
b.tool({ name: "t", inputSchema: raw }, () => ({ content: [], isErorr: true }));
// @ts-expect-error isErorr is not a member of a tool result
b.tool({ name: "t", inputSchema: raw }, async () => ({ content: [], isErorr: true }));
// @ts-expect-error mesages is not a member of a prompt result
b.prompt({ name: "p" }, () => ({ mesages: [], messages: [] }));
// @ts-expect-error content is not a member of a resource result
b.resource({ uri: "a://b", name: "b" }, () => ({ contents: [], content: [] }));

// Raw JSON Schema: a JSON object for arguments; any JSON value as structured content.
b.tool({ name: "t", inputSchema: raw }, (args) => {
  const a: unknown = args.a;
  return { content: [{ type: "text", text: String(a) }], structuredContent: [1, "two"] };
});

// zod: arguments and structuredContent typed from the schemas.
b.tool(
  {
    name: "add",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() }),
  },
  async ({ a, b: second }) => ({
    content: [{ type: "text", text: "" }],
    structuredContent: { sum: a + second },
  }),
);
// @ts-expect-error c is not an argument of this schema
b.tool({ name: "add", inputSchema: z.object({ a: z.number() }) }, ({ c }) => ({
  content: [{ type: "text", text: String(c) }],
}));
b.tool(
  { name: "add", inputSchema: z.object({ a: z.number() }), outputSchema: z.object({ sum: z.number() }) },
  // @ts-expect-error structuredContent must match the outputSchema
  ({ a }) => ({ content: [], structuredContent: { sum: String(a) } }),
);

// Valibot and ArkType infer too.
b.tool({ name: "v", inputSchema: toStandardJsonSchema(v.object({ s: v.string() })) }, ({ s }) => ({
  content: [{ type: "text", text: s.toUpperCase() }],
}));
b.tool({ name: "a", inputSchema: type({ n: "number" }) }, ({ n }) => ({
  content: [{ type: "text", text: n.toFixed(1) }],
}));
b.tool({ name: "a", inputSchema: type({ n: "number" }) }, ({ n }) => ({
  // @ts-expect-error n is a number, not a string
  content: [{ type: "text", text: n.toUpperCase() }],
}));

// Prompts typed from argsSchema.
b.prompt({ name: "review", argsSchema: z.object({ file: z.string() }) }, ({ file }) => ({
  messages: [{ role: "user", content: { type: "text", text: file } }],
}));

// The wire types stay open: unknown members are allowed there.
const wireTool: Tool = { name: "t", inputSchema: { type: "object" }, "x-vendor": true };
const wireResult: CallToolResult = { content: [], isErorr: "kept as an unknown member" };

export { wireResult, wireTool };

// A literal in structuredContent stays a literal (an enum of the output schema), sync or async.
const sky = z.object({ sky: z.enum(["clear", "rain"]) });
b.tool({ name: "s", inputSchema: z.object({}), outputSchema: sky }, () => ({
  content: [],
  structuredContent: { sky: "clear" },
}));
b.tool({ name: "s", inputSchema: raw, outputSchema: sky }, async () => ({
  content: [],
  structuredContent: { sky: "rain" },
}));
b.tool({ name: "s", inputSchema: raw, outputSchema: sky }, () => ({
  content: [],
  // @ts-expect-error "snow" is not in the enum
  structuredContent: { sky: "snow" },
}));

// A result typed with a wire type (open to unknown members, e.g. relayed from another server) is accepted.
declare const relayedRead: ReadResourceResult;
declare const relayedCall: CallToolResult;
b.resource({ uri: "a://relayed", name: "relayed" }, async () => relayedRead);
b.tool({ name: "relayed", inputSchema: raw }, () => relayedCall);
