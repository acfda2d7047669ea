/**
 * Over stdio the seed's 1,000,000-byte frame stays the default (`maxFrameBytes`, `maxOutboundFrameBytes`); what
 * goes past it is refused with an error naming the option, its value and the size seen, and a skill file read
 * through the Skills client names the skill and the file as well.
 */
import { describe, expect, it } from "vitest";
import { JsonRpcError, McpkitError } from "../../src/jsonrpc/errors.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { SkillsRequest } from "../../src/skills/client.js";
import { createSkillCatalogue, readSkillFile, skillsServer } from "../../src/skills/index.js";
import { FrameDecoder } from "../../src/stdio/framing.js";
import { StdioServerTransport } from "../../src/stdio/server-transport.js";
import { stdioPipes } from "../support/stdio-pipes.js";
import { until } from "../support/until.js";

const LEGACY = "2025-11-25";

describe("stdio frame limits", () => {
  it("an inbound frame past the default maxFrameBytes is refused naming the option, the limit and the size", () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 1_000_000, maxPendingBytes: 4_000_000 }, () => {});
    const frame = Buffer.from(`${"x".repeat(1_000_001)}\n`);
    const error = (() => {
      try {
        decoder.push(frame);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).message).toBe("frame: 1000001 bytes, over maxFrameBytes (1000000)");
    expect((error as McpkitError).details).toEqual({
      option: "maxFrameBytes",
      limit: 1_000_000,
      size: 1_000_001,
    });
  });

  it("a skill file over the default stdio frame is answered -32603 naming maxOutboundFrameBytes, size and skill", async () => {
    const reference = "r".repeat(1_500_000);
    const catalogue = await createSkillCatalogue([
      {
        frontmatter: { name: "big-docs", description: "A skill with a large reference" },
        files: { "references/REFERENCE.md": reference },
      },
    ]);
    const server = new ServerBuilder({ serverInfo: { name: "skills", version: "1.0.0" } })
      .extension(skillsServer(catalogue).extension)
      .build();
    const io = stdioPipes();
    await server.connect(new StdioServerTransport({ input: io.input, output: io.output }));
    let next = 0;
    const request: SkillsRequest = async (method, params) => {
      const id = ++next;
      const seen = io.lines.length;
      io.write({ jsonrpc: "2.0", id, method, params });
      await until(() => io.lines.slice(seen).some((line) => JSON.parse(line).id === id));
      const answer = io.frames().find((frame) => frame.id === id) as {
        result?: { [key: string]: unknown };
        error?: { code: number; message: string; data?: unknown };
      };
      if (answer.error) throw new JsonRpcError(answer.error.code, answer.error.message, answer.error.data);
      return answer.result as never;
    };
    await request("initialize", {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "raw", version: "1.0.0" },
    });
    io.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    const entry = catalogue.entries[0];
    if (entry === undefined) throw new Error("no entry");
    const error = await readSkillFile(request, entry, "references/REFERENCE.md").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JsonRpcError);
    const refused = error as JsonRpcError;
    expect(refused.code).toBe(-32603);
    expect(refused.message).toMatch(
      /^skill skill:\/\/big-docs\/SKILL\.md, reading skill:\/\/big-docs\/references\/REFERENCE\.md: .*: \d+ bytes, over maxOutboundFrameBytes \(1000000\)$/,
    );
    expect(refused.data).toMatchObject({
      option: "maxOutboundFrameBytes",
      limit: 1_000_000,
      reason: "response_too_large",
      skill: "skill://big-docs/SKILL.md",
      file: "skill://big-docs/references/REFERENCE.md",
    });
    expect((refused.data as { size: number }).size).toBeGreaterThan(1_500_000);
    await server.close();
  });
});
