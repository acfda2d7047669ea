/**
 * `Mcp-Param-{Name}` headers over real HTTP on 127.0.0.1, checked against tool schemas from a static map and
 * from a resolver: present, missing, mismatched, base64 (valid, bad padding, bad characters, a literal that
 * looks like the sentinel), typed values, nesting; and never a `tools/list` side effect.
 */
import { describe, expect, it } from "vitest";
import { headerParamsOf, routingHeaders } from "../../src/protocol/routing-headers.js";
import type { ServerLogger } from "../../src/server/core/options.js";
import { createServer } from "../../src/server/server.js";
import { HttpPeer, type Reply, useServe } from "../support/http-peer.js";

const serve = useServe();
const MODERN = "2026-07-28";

const DEPLOY = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    replicas: { type: "integer", "x-mcp-header": "Replicas" },
    dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
    target: { type: "object", properties: { env: { type: "string", "x-mcp-header": "Env" } } },
  },
} as const;
const PARAMS = (() => {
  const result = headerParamsOf(DEPLOY);
  if (!result.ok) throw new Error(result.problem);
  return result.params;
})();

const quiet: ServerLogger = { warn: () => {}, error: () => {} };

/** A server with `deploy` and `other`; it counts `tools/list` calls, which routing must never make. */
function deployServer() {
  const calls = { listTools: 0 };
  const server = createServer({
    serverInfo: { name: "deploy", version: "1.0.0" },
    logger: quiet,
    handler: {
      listTools: () => {
        calls.listTools++;
        return { tools: [{ name: "deploy", inputSchema: { ...DEPLOY } }] };
      },
      callTool: ({ name, arguments: args }) => ({
        content: [{ type: "text", text: `${name} ${JSON.stringify(args)}` }],
      }),
    },
  });
  return { server, calls };
}

async function setup() {
  const { server, calls } = deployServer();
  const { url } = await serve(server, { handler: { toolSchemas: { deploy: DEPLOY } } });
  const peer = new HttpPeer(url, MODERN);
  /** Calls deploy with the headers a correct client sends, then `headers` on top. */
  const deploy = (args: { [key: string]: unknown }, headers: { [name: string]: string | undefined } = {}) => {
    const request = peer.request("tools/call", { name: "deploy", arguments: args });
    return peer.send(request, { headers: { ...routingHeaders(request, MODERN, PARAMS), ...headers } });
  };
  return { peer, calls, deploy };
}

function expectMismatch(reply: Reply, header: string): void {
  expect(reply.status, reply.text).toBe(400);
  expect(reply.messages[0]).toMatchObject({ error: { code: -32020, data: { header } } });
}

function expectServed(reply: Reply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.messages.at(-1)).toHaveProperty("result");
}

describe("Mcp-Param headers from a static schema map", () => {
  it("accepts matching headers of every type, nested ones, and lowercase header names", async () => {
    const { deploy, calls } = await setup();
    expectServed(await deploy({ region: "eu-west", replicas: 3, dry: false, target: { env: "prod" } }));
    expectServed(await deploy({ region: "eu-west" }, { "mcp-param-region": "eu-west" }));
    expectServed(await deploy({ region: "eu-west" }, { "MCP-PARAM-REGION": "eu-west" }));
    expectServed(await deploy({ replicas: 3 }, { "Mcp-Param-Replicas": "03" }));
    expectServed(await deploy({ dry: true }, { "Mcp-Param-Dry-Run": "true" }));
    expect(calls.listTools).toBe(0);
  });

  it("refuses a missing header, a header without its argument, and a mismatch (400 -32020)", async () => {
    const { deploy, calls } = await setup();
    expectMismatch(await deploy({ region: "eu" }, { "Mcp-Param-Region": undefined }), "Mcp-Param-Region");
    expectMismatch(await deploy({}, { "Mcp-Param-Region": "eu" }), "Mcp-Param-Region");
    expectMismatch(await deploy({ region: "eu" }, { "Mcp-Param-Region": "us" }), "Mcp-Param-Region");
    expectMismatch(await deploy({ region: "eu" }, { "Mcp-Param-Region": "EU" }), "Mcp-Param-Region");
    expectMismatch(await deploy({ target: { env: "prod" } }, { "Mcp-Param-Env": "dev" }), "Mcp-Param-Env");
    for (const value of ["3.0", "three", "4"]) {
      expectMismatch(await deploy({ replicas: 3 }, { "Mcp-Param-Replicas": value }), "Mcp-Param-Replicas");
    }
    for (const value of ["TRUE", "1", "yes"]) {
      expectMismatch(await deploy({ dry: true }, { "Mcp-Param-Dry-Run": value }), "Mcp-Param-Dry-Run");
    }
    // A null argument means no header; the header then must not be sent.
    expectServed(await deploy({ region: null }));
    expectMismatch(await deploy({ region: null }, { "Mcp-Param-Region": "null" }), "Mcp-Param-Region");
    expect(calls.listTools).toBe(0);
  });

  it("decodes base64 values and refuses undecodable ones", async () => {
    const { deploy } = await setup();
    // "zürich" is not ASCII: the client sends it base64-encoded.
    const unicode = await deploy({ region: "zürich" });
    expectServed(unicode);
    expectServed(await deploy({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8=?=" }));
    expectMismatch(
      await deploy({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8?=" }),
      "Mcp-Param-Region",
    );
    expectMismatch(
      await deploy({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" }),
      "Mcp-Param-Region",
    );
  });

  it("takes values without the whole sentinel as literals, and a sentinel-looking literal only encoded", async () => {
    const { deploy } = await setup();
    expectServed(await deploy({ region: "SGVsbG8=" }, { "Mcp-Param-Region": "SGVsbG8=" }));
    expectServed(await deploy({ region: "=?base64?SGVsbG8=" }, { "Mcp-Param-Region": "=?base64?SGVsbG8=" }));
    const lookalike = "=?base64?SGVsbG8=?=";
    // A correct client encodes the look-alike (routingHeaders does); sent raw, it decodes to "Hello".
    expectServed(await deploy({ region: lookalike }));
    expectMismatch(
      await deploy({ region: lookalike }, { "Mcp-Param-Region": lookalike }),
      "Mcp-Param-Region",
    );
  });

  it("checks nothing for a tool the map does not name", async () => {
    const { peer } = await setup();
    const request = peer.request("tools/call", { name: "other", arguments: { region: "eu" } });
    expectServed(await peer.send(request, { headers: { "Mcp-Param-Region": "us" } }));
  });
});

describe("Mcp-Param headers from a resolver", () => {
  it("asks the resolver with the tool name and the identity, after identity resolution", async () => {
    const { server, calls } = deployServer();
    const asked: Array<[string, unknown]> = [];
    const { url } = await serve(server, {
      handler: {
        authenticate: (request) => request.headers.get("x-user") ?? undefined,
        toolSchemas: async (name, identity) => {
          asked.push([name, identity]);
          return identity === "ops" && name === "deploy" ? DEPLOY : undefined;
        },
      },
    });
    const peer = new HttpPeer(url, MODERN);
    const call = (user: string, region: string) => {
      const request = peer.request("tools/call", { name: "deploy", arguments: { region } });
      return peer.send(request, { headers: { "x-user": user, "Mcp-Param-Region": "fixed" } });
    };
    expectMismatch(await call("ops", "eu"), "Mcp-Param-Region");
    expectServed(await call("ops", "fixed"));
    // For another identity the resolver knows no schema: nothing is checked.
    expectServed(await call("dev", "eu"));
    expect(asked).toEqual([
      ["deploy", "ops"],
      ["deploy", "ops"],
      ["deploy", "dev"],
    ]);
    expect(calls.listTools).toBe(0);
  });

  it("answers 500 -32603 when the resolver fails or returns an invalid schema", async () => {
    const { server } = deployServer();
    const { url } = await serve(server, {
      handler: {
        toolSchemas: (name) => {
          if (name === "boom") throw new Error("resolver exploded");
          return { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } };
        },
      },
    });
    const peer = new HttpPeer(url, MODERN);
    for (const name of ["boom", "deploy"]) {
      const reply = await peer.send(peer.request("tools/call", { name, arguments: {} }));
      expect(reply.status).toBe(500);
      expect(reply.messages[0]).toMatchObject({ error: { code: -32603, message: "Internal error" } });
      expect(reply.text).not.toContain("exploded");
    }
  });
});
