// The code of docs/tools.md, type-checked with the examples; test/examples.test.ts checks that every ```ts block
// of that page appears here verbatim. Nothing here runs.
import { McpkitError } from "mcpkit";
import { Client } from "mcpkit/client";
import { ServerBuilder } from "mcpkit/server";
import type { JsonSchemaValidatorFactory } from "mcpkit/validation";
import { jsonSchemaValidator } from "mcpkit/validation";
import * as z from "zod";

declare const transport: ConstructorParameters<typeof Client>[0]["transport"];
declare function lookUp(city: string): { celsius: number; sky: string };

export function zodTool() {
  return (
    // #region zod
    new ServerBuilder({ serverInfo: { name: "weather", version: "1.0.0" } })
      .tool(
        {
          name: "forecast",
          description: "Tomorrow's weather for a city",
          inputSchema: z.object({
            city: z.string().describe("City name"),
            days: z.number().int().min(1).default(1),
          }),
          outputSchema: z.object({ celsius: z.number(), sky: z.enum(["clear", "cloudy", "rain"]) }),
        },
        ({ city, days }) => {
          const { celsius, sky } = lookUp(city); // city: string, days: number (the default applied)
          const text = `${city}, ${days} day(s): ${celsius} °C, ${sky}`;
          return { content: [{ type: "text", text }], structuredContent: { celsius, sky: "clear" } };
        },
      )
      // #endregion zod
      .build()
  );
}

export function rawTool() {
  return (
    // #region raw
    new ServerBuilder({ serverInfo: { name: "calc", version: "1.0.0" } })
      .tool(
        {
          name: "add",
          inputSchema: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
            additionalProperties: false,
          },
        },
        ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }), // a, b: unknown
      )
      // #endregion raw
      .build()
  );
}

export function promptWithSchema() {
  return (
    // #region prompt
    new ServerBuilder({ serverInfo: { name: "review", version: "1.0.0" } })
      .prompt(
        { name: "review", argsSchema: z.object({ file: z.string().describe("Path to review") }) },
        ({ file }) => ({ messages: [{ role: "user", content: { type: "text", text: `Review ${file}` } }] }),
      )
      // #endregion prompt
      .build()
  );
}

export function offSwitches() {
  const schema = { type: "object" };
  const handler = () => ({ content: [] });
  // #region off
  const everythingOff = new ServerBuilder({ serverInfo: { name: "s", version: "1.0.0" }, validate: false });
  const oneToolOff = new ServerBuilder({ serverInfo: { name: "s", version: "1.0.0" } }).tool(
    { name: "raw", inputSchema: schema },
    handler,
    { validate: false },
  );
  // #endregion off
  return [everythingOff, oneToolOff];
}

export function customValidator(compile: (schema: object) => (value: unknown) => boolean) {
  // #region custom
  // Any compiler that turns a JSON Schema into a check; return one issue per failing path.
  const myValidator: JsonSchemaValidatorFactory = (schema) => {
    const check = compile(schema);
    return (value) => (check(value) ? [] : [{ path: "", message: "does not match the schema" }]);
  };
  const server = new ServerBuilder({
    serverInfo: { name: "s", version: "1.0.0" },
    jsonSchemaValidator: myValidator,
  });
  // #endregion custom
  return [server, jsonSchemaValidator];
}

export async function clientOptIn() {
  // #region client
  const client = new Client({
    transport,
    clientInfo: { name: "app", version: "1.0.0" },
    validateStructuredContent: true,
  });
  await client.connect();
  await client.listTools(); // remembers each tool's outputSchema (at most 1,024 tools)
  try {
    await client.callTool("forecast", { city: "Oslo" });
  } catch (error) {
    // details: tool, issues ([{ path, message }]), result
    if (error instanceof McpkitError && error.code === "INVALID_RESULT") console.error(error.details?.issues);
  }
  // #endregion client
}
