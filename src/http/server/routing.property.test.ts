import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../../test/support/property.js";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  type HeaderParam,
  headerParamsOf,
  McpHeader,
  routingHeaders,
} from "../../protocol/routing-headers.js";
import { HttpRefusal } from "./responses.js";
import { checkParamHeaders } from "./routing.js";

const TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Well-formed strings leaning on what a header cannot carry as it is. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom(" ", "\t", "\r\n", "\u0000", "é", "😀", "\ufeff", "=?base64?", "?=", "0", "-", "+"),
    fc.string({ unit: "grapheme", maxLength: 1 }),
  ),
  maxLength: 16,
});

/** An argument value: of the annotated type, of another, or absent/null. */
const argument = fc.oneof(
  text,
  fc.integer(),
  fc.maxSafeInteger(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(2 ** 60),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 2 }),
);

interface Case {
  params: readonly HeaderParam[];
  /** The arguments as the server sees them: parsed from the request's JSON body. */
  args: { [key: string]: unknown };
  name: string;
}

/** Tools with 1-4 annotated arguments at distinct (nested) paths, and arguments for them. */
const tool: fc.Arbitrary<Case> = fc
  .uniqueArray(
    fc.array(fc.constantFrom("a", "b", "region", "é", "__proto__"), { minLength: 1, maxLength: 2 }),
    {
      selector: (path) => path[0],
      minLength: 1,
      maxLength: 4,
    },
  )
  .chain((paths) =>
    fc.tuple(
      fc.constant(paths),
      fc.uniqueArray(fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 8 }), {
        selector: (n) => n.toLowerCase(),
        minLength: paths.length,
        maxLength: paths.length,
      }),
      fc.array(fc.constantFrom("string", "integer", "boolean"), {
        minLength: paths.length,
        maxLength: paths.length,
      }),
      fc.array(argument, { minLength: paths.length, maxLength: paths.length }),
      text,
    ),
  )
  .map(([paths, names, types, values, name]) => {
    const properties: { [key: string]: unknown } = Object.create(null);
    const args: { [key: string]: unknown } = Object.create(null);
    paths.forEach((path, i) => {
      const [head = "", leaf] = path;
      const annotated = { type: types[i], "x-mcp-header": names[i] };
      properties[head] =
        leaf === undefined
          ? annotated
          : { type: "object", properties: Object.fromEntries([[leaf, annotated]]) };
      const value = values[i];
      args[head] = leaf === undefined ? value : Object.fromEntries([[leaf, value]]);
    });
    const schema = JSON.parse(JSON.stringify({ type: "object", properties }));
    const found = headerParamsOf(schema);
    if (!found.ok) throw new Error(found.problem);
    return { params: found.params, args: JSON.parse(JSON.stringify(args)), name };
  });

/** The headers as an HTTP server reads them, after a real `Headers` object has checked and normalised them. */
function received(headers: { [name: string]: string }) {
  const parsed = new Headers(Object.entries(headers));
  return { parsed, view: { header: (name: string) => parsed.get(name) } };
}

function expectMismatch(run: () => void): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpRefusal);
    expect((error as HttpRefusal).refusal).toMatchObject({ status: 400, code: -32020 });
    return;
  }
  expect.unreachable("the headers were accepted");
}

describe("routing headers, client to server", () => {
  it("the headers a client builds for any tools/call pass the server's checks", () => {
    fc.assert(
      fc.property(tool, ({ params, args, name }) => {
        const request = { method: "tools/call", params: { name, arguments: args } };
        const { parsed, view } = received(routingHeaders(request, "2026-07-28", params));
        expect(() => checkParamHeaders(params, args, view)).not.toThrow();
        expect(decodeHeaderValue(parsed.get(McpHeader.method) ?? "")).toBe("tools/call");
        expect(decodeHeaderValue(parsed.get(McpHeader.name) ?? "")).toBe(name);
      }),
      runs(0x20a70001, 150),
    );
  });

  it("a header changed to another value, dropped, or sent for an absent argument is refused with 400 -32020", () => {
    fc.assert(
      fc.property(
        tool,
        fc.nat(),
        text,
        fc.constantFrom("change", "drop"),
        ({ params, args }, pick, other, how) => {
          const headers = routingHeaders(
            { method: "tools/call", params: { name: "t", arguments: args } },
            "v",
            params,
          );
          const param = params[pick % params.length];
          if (param === undefined) return;
          const key = `${McpHeader.paramPrefix}${param.name}`;
          const sent = headers[key];
          if (sent === undefined) {
            // No header for this argument (absent, null, or without a header form): one sent anyway is refused
            // when the argument is absent or null.
            const value = param.path.reduce<unknown>(
              (node, k) => (node as { [k: string]: unknown })?.[k],
              args,
            );
            fc.pre(value === undefined || value === null);
            headers[key] = encodeHeaderValue(other);
            expectMismatch(() => checkParamHeaders(params, args, received(headers).view));
            return;
          }
          const value = decodeHeaderValue(sent);
          if (how === "drop") delete headers[key];
          else {
            fc.pre(other !== value && !(/^[+-]?\d+$/.test(other) && Number(other) === Number(value)));
            headers[key] = encodeHeaderValue(other);
          }
          expectMismatch(() => checkParamHeaders(params, args, received(headers).view));
        },
      ),
      runs(0x20a70002, 150),
    );
  });
});
