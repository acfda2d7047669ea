/**
 * A zod-typed tool over Streamable HTTP (mcpkit's server and client on 127.0.0.1), both eras: its JSON Schema
 * (with an `x-mcp-header` annotation from zod's `.meta()`) reaches the client through `tools/list` and drives
 * the `Mcp-Param-*` header the server checks; bad arguments come back as an `isError` result, and the client's
 * opt-in check sees `structuredContent`. Every message is checked against the official schema of its era.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { textOf } from "../support/interop-helpers.js";
import { useWireValidation } from "../support/validating-transport.js";
import { httpClient, LEGACY, MODERN, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

const RegionInput = z.object({
  region: z.string().meta({ "x-mcp-header": "Region" }),
  limit: z.number().int(),
});
const RegionOutput = z.object({ region: z.string(), limit: z.number() });

async function start() {
  const server = new ServerBuilder({ serverInfo: { name: "typed-http", version: "1.0.0" } })
    .tool(
      { name: "regional", inputSchema: RegionInput, outputSchema: RegionOutput },
      ({ region, limit }) => ({
        content: [{ type: "text", text: `${region} x${limit}` }],
        structuredContent: { region, limit },
      }),
    )
    .build();
  // The HTTP handler checks Mcp-Param headers against the tool's JSON Schema: the same form the client lists.
  const wire = RegionInput["~standard"].jsonSchema.input({ target: "draft-2020-12" });
  const handler = createHttpHandler(server, { toolSchemas: { regional: wire as { type: "object" } } });
  const running = await serve(handler, { host: "127.0.0.1" });
  cleanup(
    () => running.close(),
    () => handler.close(),
  );
  return running.url;
}

describe.each([MODERN, LEGACY] as const)("a zod-typed tool over HTTP, %s", (era) => {
  it("lists its JSON Schema, validates arguments, and the client checks structuredContent", async () => {
    const url = await start();
    const { client, sent } = httpClient(url, {
      era,
      pin: era,
      cleanup,
      client: { validateStructuredContent: true },
    });
    await client.connect();
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toMatchObject({
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, limit: { type: "integer" } },
      required: ["region", "limit"],
    });
    const good = await client.callTool("regional", { region: "eu", limit: 2 });
    expect(good).toMatchObject({ structuredContent: { region: "eu", limit: 2 } });
    expect(textOf(good)).toBe("eu x2");
    const bad = await client.callTool("regional", { region: "eu", limit: 1.5 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments for tool "regional":\n\/limit: /);
    if (era === MODERN) {
      const calls = sent.filter((s) => s.body && "method" in s.body && s.body.method === "tools/call");
      expect(calls.map((call) => call.headers["mcp-param-region"])).toEqual(["eu", "eu"]);
    }
  });
});
