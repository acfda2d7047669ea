import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ElicitFormParams } from "../protocol/types/index.js";
import { askForm } from "./elicit.js";
import { LineReader } from "./line-reader.js";

const form: ElicitFormParams = {
  message: "Deploy settings",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Service name", minLength: 2 },
      replicas: { type: "integer", minimum: 1, maximum: 5, default: 2 },
      ratio: { type: "number" },
      public: { type: "boolean", description: "Expose it" },
      region: { type: "string", enum: ["eu", "us"], enumNames: ["Europe", "America"] },
      size: {
        type: "string",
        oneOf: [
          { const: "s", title: "Small" },
          { const: "l", title: "Large" },
        ],
      },
      tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 },
    },
    required: ["name", "region"],
  },
};

async function answer(lines: string, params: ElicitFormParams = form, signal?: AbortSignal) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
  });
  input.end(lines);
  const reader = new LineReader(input, output);
  const result = await askForm(params, { reader, output, ...(signal ? { signal } : {}) });
  reader.close();
  return { result, shown };
}

describe("askForm", () => {
  it("asks each field, re-asks invalid answers, and accepts", async () => {
    const { result, shown } = await answer(
      ["x", "api", "9", "", "1.5", "maybe", "yes", "3", "Europe", "eu", "2", "1,3,2", "1, 3", ""].join("\n") +
        "\n",
    );
    expect(result).toEqual({
      action: "accept",
      content: { name: "api", ratio: 1.5, public: true, region: "eu", size: "l", tags: ["a", "c"] },
    });
    expect(shown).toContain("The server asks: Deploy settings");
    expect(shown).toContain("Service name (string, required): ");
    expect(shown).toContain("at least 2 characters");
    expect(shown).toContain("replicas (integer, optional) [2]: ");
    expect(shown).toContain("at most 5");
    expect(shown).toContain("public (yes/no, optional) - Expose it: ");
    expect(shown).toContain("answer yes or no");
    expect(shown).toContain("    1. Europe\n    2. America\n");
    expect(shown).toContain("pick from the list");
    expect(shown).toContain("    2. Large\n");
    expect(shown).toContain("pick 0 to 2");
    expect(shown).toContain("Send these answers? [Y/n] ");
  });

  it("declines when the user says no at the end", async () => {
    const { result } = await answer("api\n\n\n\n1\n\n\nn\n");
    expect(result).toEqual({ action: "decline" });
  });

  it("cancels at the end of input", async () => {
    expect((await answer("api\n")).result).toEqual({ action: "cancel" });
    expect((await answer("")).result).toEqual({ action: "cancel" });
  });

  it("re-asks a required field left empty", async () => {
    const params: ElicitFormParams = {
      message: "m",
      requestedSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    };
    const { result, shown } = await answer("\n4\ny\n", params);
    expect(result).toEqual({ action: "accept", content: { n: 4 } });
    expect(shown).toContain("this field is required");
  });

  it("stops waiting when the signal fires", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    const controller = new AbortController();
    const asked = askForm(form, { reader: new LineReader(input, output), output, signal: controller.signal });
    controller.abort(new Error("no longer wanted"));
    await expect(asked).rejects.toThrow("no longer wanted");
  });
});
