import { describe, expect, it } from "vitest";
import type { InputRequest, InputRequests } from "../../protocol/types/input.js";
import { describeCapabilities, inputRequired, isInputRequired, missingCapabilities } from "./input.js";

const elicit = {
  method: "elicitation/create",
  params: { message: "?", requestedSchema: { type: "object", properties: {} } },
} as const;
const sample: InputRequest = { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } };
const roots = { method: "roots/list" } as const;

describe("inputRequired()", () => {
  it("copies requests and state (as JSON) and is recognised across copies", () => {
    const state = { step: 1, when: new Date(0) };
    const requests: InputRequests = { name: structuredClone(elicit) };
    const answer = inputRequired(requests, state as never);
    (requests.name as { params: { message: string } }).params.message = "changed";
    state.step = 2;
    expect(answer.requests.name).toEqual(elicit);
    expect(answer.state).toEqual({ step: 1, when: "1970-01-01T00:00:00.000Z" });
    expect(isInputRequired(answer)).toBe(true);
    expect(isInputRequired({ ...answer })).toBe(true);
    expect(isInputRequired({ requests: {}, state: 1 })).toBe(false);
    expect(Object.isFrozen(answer)).toBe(true);
  });

  it("accepts state alone (load shedding) but not nothing at all", () => {
    expect(inputRequired({}, "later").state).toBe("later");
    expect(() => inputRequired({})).toThrow(/at least one input, or carry a state/);
  });

  it.each([
    [
      { x: { method: "tools/call", params: {} } },
      /sampling\/createMessage, elicitation\/create or roots\/list/,
    ],
    [{ "": roots }, /key must not be empty/],
    [{ x: { method: "elicitation/create" } }, /needs params/],
    [{ x: { method: "roots/list", params: [] } }, /params must be an object/],
    [[], /requests must be an object/],
  ])("refuses malformed requests %j", (requests, message) => {
    expect(() => inputRequired(requests as never)).toThrow(message);
  });

  it("refuses a state that is not JSON", () => {
    expect(() => inputRequired({ r: roots }, (() => 1) as never)).toThrow(/state must be a JSON value/);
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    expect(() => inputRequired({ r: roots }, cycle as never)).toThrow(TypeError);
  });
});

describe("missingCapabilities()", () => {
  const all = { sampling: {}, elicitation: {}, roots: {} };

  it("finds nothing missing when the client declared everything asked for", () => {
    expect(missingCapabilities({ a: elicit, b: sample, c: roots }, all)).toBeUndefined();
    expect(missingCapabilities({}, {})).toBeUndefined();
  });

  it("names each missing capability as a ClientCapabilities object", () => {
    expect(missingCapabilities({ a: elicit, b: sample, c: roots }, {})).toEqual({
      elicitation: {},
      sampling: {},
      roots: {},
    });
    expect(missingCapabilities({ b: sample, c: roots }, { sampling: {} })).toEqual({ roots: {} });
  });

  it("needs sampling.tools for a sampling request with tools", () => {
    const withTools: InputRequest = {
      method: "sampling/createMessage",
      params: { messages: [], maxTokens: 1, tools: [] },
    };
    expect(missingCapabilities({ t: withTools }, { sampling: {} })).toEqual({ sampling: { tools: {} } });
    expect(missingCapabilities({ t: withTools }, { sampling: { tools: {} } })).toBeUndefined();
  });

  it("tells form and URL elicitation apart (an empty elicitation object means form)", () => {
    const url = {
      method: "elicitation/create",
      params: { mode: "url", message: "go", url: "https://x" },
    } as const;
    expect(missingCapabilities({ u: url }, { elicitation: {} })).toEqual({ elicitation: { url: {} } });
    expect(missingCapabilities({ u: url }, {})).toEqual({ elicitation: { url: {} } });
    expect(missingCapabilities({ u: url }, { elicitation: { url: {} } })).toBeUndefined();
    expect(missingCapabilities({ f: elicit }, { elicitation: { url: {} } })).toEqual({
      elicitation: { form: {} },
    });
    expect(missingCapabilities({ f: elicit }, { elicitation: { form: {} } })).toBeUndefined();
  });

  it("describes what is missing for an error message", () => {
    expect(describeCapabilities({ sampling: {}, elicitation: { url: {} } })).toBe(
      "sampling, elicitation.url",
    );
  });
});
