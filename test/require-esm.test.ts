/**
 * The README says: mcpkit is ESM-only, and on Node >= 20.19 (and 22.12+) `require("mcpkit")` works through
 * require(esm). A CommonJS script requires every entry point of the BUILT package (`npm run build` first) and
 * runs a call; on a Node without require(esm) the same script must fail with ERR_REQUIRE_ESM instead.
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/wire-schema.js";

const SCRIPT = `
const { createInProcessPair } = require("mcpkit");
const { ServerBuilder } = require("mcpkit/server");
const { Client } = require("mcpkit/client");
const { createHttpHandler } = require("mcpkit/http");
const { toNodeHandler } = require("mcpkit/node");
const { serveStdio } = require("mcpkit/stdio");
const server = new ServerBuilder({ serverInfo: { name: "cjs", version: "1.0.0" } })
  .tool({ name: "hi", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "hi" }] }))
  .build();
(async () => {
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({ transport: clientSide, clientInfo: { name: "cjs", version: "1.0.0" } });
  const info = await client.connect();
  const result = await client.callTool("hi", {});
  await client.close();
  const kinds = [createHttpHandler, toNodeHandler, serveStdio].map((f) => typeof f).join(",");
  console.log(info.era, result.content[0].text, kinds);
})();
`;

function hasRequireEsm(version: string): boolean {
  const [major = 0, minor = 0] = version.slice(1).split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
}

describe("require(esm)", () => {
  it(`require("mcpkit") from CommonJS on Node ${process.version}`, async () => {
    const dir = join(repoRoot, ".examples-out");
    mkdirSync(dir, { recursive: true });
    const script = join(dir, "require-esm.cjs");
    writeFileSync(script, SCRIPT);
    const run = promisify(execFile)(process.execPath, [script], { cwd: repoRoot });
    if (hasRequireEsm(process.version)) {
      expect((await run).stdout.trim()).toBe("2026-07-28 hi function,function,function");
    } else {
      await expect(run).rejects.toThrow(/ERR_REQUIRE_ESM/);
    }
  });
});
