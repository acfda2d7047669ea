import { describe, expect, it } from "vitest";
import { JsonRpcError, McpkitError } from "../client/index.js";
import { classifyError, ExitCode, UsageError } from "./exit-codes.js";
import { argumentSummary, capabilityList, renderCallResult, renderCompletion, renderInfo } from "./render.js";
import { safe, table } from "./table.js";

describe("table", () => {
  it("pads columns to the widest cell and leaves the last one ragged", () => {
    expect(
      table(
        ["A", "BB"],
        [
          ["xyz", "1"],
          ["q", "long text"],
        ],
      ),
    ).toBe("A    BB\nxyz  1\nq    long text\n");
  });

  it("cuts lines to the width with an ellipsis, and keeps one line per row", () => {
    const out = table(["NAME", "DESCRIPTION"], [["add", "Adds two numbers\nand more"]], 14);
    expect(out).toBe("NAME  DESCRIP…\nadd   Adds tw…\n");
  });

  it("makes control characters visible, so a server cannot drive the terminal", () => {
    expect(safe("red\x1b[31m bell\x07 tab\t ok")).toBe("red\\u001b[31m bell\\u0007 tab\t ok");
    // CRLF line ends are plain line ends; a lone carriage return (which would overwrite the line) is shown.
    expect(safe("a\r\nb\rc")).toBe("a\nb\\u000dc");
    expect(table(["X"], [["\x1b]0;title\x07"]])).toBe("X\n\\u001b]0;title\\u0007\n");
  });
});

describe("renderings", () => {
  it("summarises arguments: required bare, optional with ?, enums as choices", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "number" },
        mode: { enum: ["x", "y"] },
        v: { type: ["string", "null"] },
        z: {},
      },
      required: ["a"],
    };
    expect(argumentSummary(schema)).toBe('a: number, mode?: "x"|"y", v?: string|null, z?: any');
    expect(argumentSummary(undefined)).toBe("");
  });

  it("lists capabilities with their flags", () => {
    expect(
      capabilityList({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: false },
        logging: {},
      }),
    ).toBe("tools (listChanged), resources (subscribe), logging");
    expect(capabilityList({})).toBe("none");
  });

  it("renders info with versions and indented instructions", () => {
    const text = renderInfo({
      era: "2026-07-28",
      protocolVersion: "2026-07-28",
      serverInfo: { name: "s", version: "1" },
      capabilities: { tools: {} },
      supportedVersions: ["2026-07-28", "2025-11-25"],
      instructions: "line one\nline two",
    });
    expect(text).toBe(
      "server        s 1\nera           2026-07-28\nversions      2026-07-28, 2025-11-25\ncapabilities  tools\ninstructions\n  line one\n  line two\n",
    );
    const older = renderInfo({ era: "2025-11-25", protocolVersion: "2025-06-18", capabilities: {} });
    expect(older).toContain("era           2025-11-25 (protocol 2025-06-18)\n");
    expect(older).toContain("server        (not given)\n");
  });

  it("renders call results: text as is, media as summaries, structured content when there is no content", () => {
    expect(
      renderCallResult({
        content: [
          { type: "text", text: "hi" },
          { type: "image", mimeType: "image/png", data: "AAAA" },
          { type: "resource_link", uri: "file:///a", name: "a" },
          { type: "resource", resource: { uri: "file:///b", text: "inline" } },
        ],
      }),
    ).toBe("hi\n[image image/png, 3 bytes]\n[resource link file:///a (a)]\ninline\n");
    expect(renderCallResult({ content: [], structuredContent: { t: 1 } })).toBe('{\n  "t": 1\n}\n');
    expect(renderCallResult({ content: [] })).toBe("(no content)\n");
    expect(renderCallResult({ content: [{ type: "text", text: "ends\n" }] })).toBe("ends\n");
  });

  it("renders completions with a note when there are more", () => {
    expect(renderCompletion({ completion: { values: ["a", "b"], total: 10, hasMore: true } })).toBe(
      "a\nb\n(more; 10 in all)\n",
    );
    expect(renderCompletion({ completion: { values: [] } })).toBe("no completions\n");
  });
});

describe("classifyError", () => {
  it("maps each kind of failure to its exit status", () => {
    expect(classifyError(new UsageError("bad")).status).toBe(ExitCode.USAGE);
    expect(classifyError(new JsonRpcError(-32602, "Invalid params", { why: 1 }))).toMatchObject({
      status: ExitCode.PROTOCOL,
      message: 'the server answered -32602 Invalid params {"why":1}',
      fields: { code: -32602, data: { why: 1 } },
    });
    const network = new McpkitError("TRANSPORT", "failed", {
      details: { reason: "network", code: "ECONNREFUSED" },
    });
    expect(classifyError(network)).toMatchObject({
      status: ExitCode.CONNECTION,
      message: "connection failed: TRANSPORT (network, ECONNREFUSED): failed",
    });
    expect(classifyError(new McpkitError("TIMEOUT", "slow")).status).toBe(ExitCode.CONNECTION);
    expect(classifyError(new McpkitError("CLOSED", "gone")).status).toBe(ExitCode.CONNECTION);
    expect(classifyError(new McpkitError("VERSION_NEGOTIATION", "no")).status).toBe(ExitCode.PROTOCOL);
    expect(classifyError(new McpkitError("PROTOCOL", "bad answer")).status).toBe(ExitCode.PROTOCOL);
    expect(classifyError(new McpkitError("INVALID_CONFIG", "bad header")).status).toBe(ExitCode.USAGE);
    expect(classifyError(new TypeError("oops"))).toMatchObject({
      status: ExitCode.INTERNAL,
      message: "internal error: TypeError: oops",
    });
  });

  it("shows only short reasons from details, never other detail values", () => {
    const error = new McpkitError("TRANSPORT", "failed", {
      details: { reason: "unauthorized", header: { secret: "x" } },
    });
    expect(JSON.stringify(classifyError(error))).not.toContain("secret");
  });
});
