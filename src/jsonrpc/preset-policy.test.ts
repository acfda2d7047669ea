import { describe, expect, it } from "vitest";
import { presetPolicy } from "./preset-policy.js";

const PRESETS = {
  default: Object.freeze({ limit: 10, mode: "open" }),
  gateway: Object.freeze({ limit: 10, mode: "closed" }),
};

function fault(input: unknown): unknown {
  try {
    presetPolicy(input, PRESETS, "test policy ");
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("presetPolicy", () => {
  it("lays the defined keys over the named preset, default when none is named", () => {
    expect(presetPolicy({}, PRESETS, "")).toEqual({ limit: 10, mode: "open" });
    expect(presetPolicy({ preset: "gateway", limit: 3, mode: undefined }, PRESETS, "")).toEqual({
      limit: 3,
      mode: "closed",
    });
    expect(Object.isFrozen(PRESETS.default)).toBe(true);
  });

  it("refuses a non-object, an unknown preset and an unknown key, naming each in the scope", () => {
    expect(fault(null)).toMatchObject({
      code: "INVALID_CONFIG",
      message: "test policy policy must be an object",
    });
    for (const preset of ["lax", "toString", 1]) {
      expect(fault({ preset })).toMatchObject({
        message: 'test policy preset must be "default" or "gateway"',
        details: { key: "preset" },
      });
    }
    for (const key of ["limits", "toString"]) {
      expect(fault({ [key]: 1 })).toMatchObject({
        message: `test policy ${key} is not an option`,
        details: { key },
      });
    }
  });
});
