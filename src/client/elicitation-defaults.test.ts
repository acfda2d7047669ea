import { describe, expect, it } from "vitest";
import type { ElicitFormParams } from "../protocol/types/input.js";
import { withElicitationDefaults } from "./elicitation-defaults.js";

const form = (properties: { [name: string]: { [key: string]: unknown } }): ElicitFormParams =>
  ({ message: "?", requestedSchema: { type: "object", properties } }) as ElicitFormParams;

describe("withElicitationDefaults (SEP-1034)", () => {
  const params = form({
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive"], default: "active" },
    verified: { type: "boolean", default: true },
    tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
    note: { type: "string" },
  });

  it("fills every field the user left out with its default", () => {
    expect(withElicitationDefaults(params, { action: "accept" })).toEqual({
      action: "accept",
      content: { name: "John Doe", age: 30, score: 95.5, status: "active", verified: true, tags: ["a"] },
    });
  });

  it("keeps what the user filled, falsy values included", () => {
    const result = withElicitationDefaults(params, {
      action: "accept",
      content: { name: "", age: 0, verified: false, tags: [] },
    });
    expect(result.content).toEqual({
      name: "",
      age: 0,
      verified: false,
      tags: [],
      score: 95.5,
      status: "active",
    });
  });

  it("leaves declined and URL-mode answers alone; returns the same object when nothing is added", () => {
    const declined = { action: "decline" } as const;
    expect(withElicitationDefaults(params, declined)).toBe(declined);
    const url = { mode: "url", message: "m", url: "https://example.com" } as const;
    const accepted = { action: "accept" } as const;
    expect(withElicitationDefaults(url, accepted)).toBe(accepted);
    const full = { action: "accept", content: { a: "x" } } as const;
    expect(withElicitationDefaults(form({ a: { type: "string" } }), full)).toBe(full);
  });

  it("ignores defaults that are not form values and inherited names", () => {
    const odd = form({
      obj: { type: "string", default: { nested: true } },
      nan: { type: "number", default: Number.NaN },
      mixed: { type: "array", default: ["a", 1] },
      toString: { type: "string", default: "own" },
    });
    expect(withElicitationDefaults(odd, { action: "accept", content: {} }).content).toEqual({
      toString: "own",
    });
  });
});
