import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FrontmatterError, parseFrontmatterYaml } from "./yaml.js";

/** What npm `yaml` (the harness's parser) gives, or "error". */
function reference(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return "error";
  }
}

/** What mcpkit gives, or "refused". */
function ours(text: string): unknown {
  try {
    return parseFrontmatterYaml(text);
  } catch (error) {
    if (!(error instanceof FrontmatterError)) throw error;
    return "refused";
  }
}

const ACCEPTED = [
  "name: pdf\ndescription: Fill PDF forms",
  "a: |\n  x",
  "a: |\n  x\n",
  "a: |+\n  x\n\n",
  "a: |+\n  x",
  "a: |-\n  x\n\n",
  "a: >\n  x\n  y\n\n  z\n   w\n  v",
  "a: |\n\n  x",
  "a: |\n  x\n    \n  y",
  "a: >\n  x\n    \n  y",
  "a: >\n\n  x\n\n  y\n",
  "a: >-\n  x\n\n\n",
  "a: >+\n  x\n\n",
  "a: |\n  \tx",
  "a: |\n  x\nb: 1",
  "a: |+\n  x\n\nb: 1",
  "a: |\nb: 1",
  "a: |+\n\n\nb: 1",
  "a: >\n  one\n  two\n   three\n  four\n\n\n  five",
  "a: |  # comment\n  x",
  "a: 012\nb: 0o17\nc: 0x1F\nd: 1e3\ne: 1.\nf: .5\ng: +1\nh: 1_000\ni: -0\nj: 1.0\nk: 0b11\nl: 1e\nm: 12:30",
  "a: 9007199254740993\nb: -12.5e-3\nc: 1E+2\nd: 00\ne: +.5\nf: -.5e1\ng: 0o\nh: 0x",
  "a: ~\nb: null\nc: Null\nd: NULL\ne: nUll\nf:\ng: true\nh: True\ni: TRUE\nj: tRue\nk: yes\nl: on\nm: off",
  "<<: x",
  "a: x # c\nb: x#c\nc: 'q' # c\nd: \"q\"   # c",
  "a: x\n\n  y",
  "a: x\n  y\n\n\n  z",
  "a:\n  x\n  y",
  "a: b\n  - c",
  "a: [1, 2,]\nb: []\nc: {}\nd: [ a , 'b' , \"c\" ]",
  "a: {b: 1, c: [x, {d: e}]}",
  "a: {\"b\":1, 'c': 2}",
  'a: "x\\u00e9\\t\\n\\\\ \\x41 \\U0001F600 \\/ \\" \\0 \\a \\b \\v \\f \\r \\e \\_ \\N \\L \\P"',
  "a: 'it''s'\nb: ''\nc: \"\"",
  "a:\n- x\n- y\nb: z",
  "a:\n  - x\n  -\n  - y",
  "a:\n  - b: 1\n    c: 2\n  - d: 3",
  "a:\n  - - x\n    - y\n  - z",
  "  a: 1\n  b: 2",
  "a: -1\nb: -x\nc: ?x\nd: :x\ne: x:y\nf: http://example.com/a#b",
  'metadata:\n  author: acme\n  version: "1.0"\nallowed-tools: Bash(git:*) Read',
  "# leading comment\nname: x # trailing\n\n# middle\ndescription: y\n# end",
  "a:\n  b:\n    c:\n      d: deep",
  "a:   x   \nb: '' ",
  "a: x\n\n\n",
  "\"quoted key\": 1\n'single key': 2\nkey with spaces: 3",
  "a: [x, [y, [z]]]\nb: {c: {d: {}}}",
  "a:\n  -\n    b: 1\n  - c",
  "a: >\n  folded\n  text\n\n  para\n",
  "a: |-\n  keep\n    indent\n  here",
  "description: Use when the user asks about [PDF] files, {forms} or 'quotes'",
  "a: x\t# tab comment",
  'a: "a\tb"',
  "a: 'multi word' \nb: 3",
];

/** Refused by the hand-written subset reader mcpkit had before the npm `yaml` package; read as YAML reads them now. */
const READ_AS_YAML = [
  'a: "x\n  y"',
  "a: [x,\n  y]",
  "? a\n: b",
  "a: |2\n   x",
  "a: [a: b]",
  "a: {a}",
  "a: x\n  [y]",
];

const REFUSED = [
  "",
  "# only a comment",
  "- a\n- b",
  "just text",
  "a: x\nb: y\na: z",
  "a: &anchor x",
  "a: *alias",
  "a: !tag x",
  "a: @x",
  "a: %x",
  "a: `x",
  "1: a",
  "true: a",
  "null: a",
  "~: a",
  "__proto__: x",
  "a: {__proto__: x}",
  "a: - x",
  "a: x: y",
  "a: 'x'y",
  "a: [x, y]z",
  "a: .inf",
  "a: -.Inf",
  "a: .nan",
  "a: 1e400",
  "\ta: 1",
  "a:\n\t- x",
  "a: [x,,y]",
  "a: [,]",
  "a:\n  b: 1\n c: 2",
  "a: x\n#c\n  y",
  "a: x # c\n  y",
  "a: |\n  x\n y",
  'a: "\\q"',
  "---\na: 1",
  "a: 1\n...",
  "%YAML 1.2\n---\na: 1",
  "a: &x 1\nb: *x",
  "a: !!str 1",
  "a: 1\n---\nb: 2",
  "a: 1\r\nb: 2\rc: 3",
];

describe("frontmatter YAML: the same JSON as npm yaml, or a refusal", () => {
  it.each(ACCEPTED)("reads %j exactly as npm yaml does", (text) => {
    const expected = reference(text);
    expect(expected).not.toBe("error");
    expect(ours(text)).toEqual(expected);
  });

  it.each(READ_AS_YAML)("reads %j as npm yaml does (once refused by the subset reader)", (text) => {
    expect(ours(text)).toEqual(reference(text));
  });

  it.each(REFUSED)("refuses %j", (text) => {
    expect(ours(text)).toBe("refused");
  });

  it("reads CRLF line endings as LF", () => {
    expect(parseFrontmatterYaml("a: 1\r\nb: |\r\n  x\r\n")).toEqual({ a: 1, b: "x\n" });
  });

  it("names the line of a refusal", () => {
    expect(() => parseFrontmatterYaml("a: 1\nb: &x 2")).toThrow(/line 2/);
  });

  it("refuses nesting deeper than the depth bound, in block and flow form", () => {
    const block = (levels: number) =>
      Array.from({ length: levels }, (_, i) => `${"  ".repeat(i)}k${i}:`).join("\n") +
      `\n${"  ".repeat(levels)}v: 1`;
    expect(ours(block(30))).not.toBe("refused");
    expect(ours(block(32))).toBe("refused");
    const flow = (levels: number) => `a: ${"[".repeat(levels)}${"]".repeat(levels)}`;
    expect(ours(flow(30))).not.toBe("refused");
    expect(ours(flow(32))).toBe("refused");
    expect(() => parseFrontmatterYaml("a:\n  b:\n    c: 1", 2)).toThrow(FrontmatterError);
  });

  it("agrees with npm yaml on every document of a generated corpus it accepts", () => {
    // Deterministic pseudo-random documents from fragments that mix accepted and refused forms.
    const scalars = [
      "x",
      "'q'",
      '"d\\n"',
      "1",
      "1.5",
      "true",
      "~",
      "a b",
      "x # c",
      "-x",
      "[1, b]",
      "{k: v}",
      "0x1f",
    ];
    const shapes = [
      (v: string) => `k: ${v}`,
      (v: string) => `k:\n  ${v}`,
      (v: string) => `k:\n  - ${v}\n  - ${v}`,
      (v: string) => `k:\n- ${v}`,
      (v: string) => `k:\n  n: ${v}\n  m: ${v}`,
      (v: string) => `k: |\n  ${v}\n\n  ${v}`,
      (v: string) => `k: >-\n  ${v}\n  ${v}\n\n`,
      (v: string) => `k: ${v}\n  ${v}`,
      (v: string) => `k:\n  - n: ${v}\n    m:\n      - ${v}`,
    ];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let accepted = 0;
    for (let i = 0; i < 600; i++) {
      const parts: string[] = [];
      for (let j = 0; j < 1 + next(3); j++) {
        const shape = shapes[next(shapes.length)] as (v: string) => string;
        parts.push(shape(scalars[next(scalars.length)] as string).replaceAll("k", `k${j}`));
      }
      const text = parts.join("\n");
      const got = ours(text);
      if (got === "refused") continue;
      accepted++;
      expect(got, text).toEqual(reference(text));
    }
    expect(accepted).toBeGreaterThan(300);
  });

  it("agrees with npm yaml on every line soup it accepts (random lines at random indents)", () => {
    const pieces = [
      "a: 1",
      "b: x y",
      "c:",
      "- 1",
      "- k: v",
      "-",
      "d: |",
      "e: >",
      "f: |-",
      "g: >+",
      "text line",
      " more text",
      "\tx",
      "",
      "   ",
      "# note",
      "h: [1, {i: j}]",
      "'k l': m",
      "- - n",
      "o: 'p' # q",
      "r: s # t",
      'u: "v\\tw"',
    ];
    let seed = 11;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const lines: string[] = [];
      for (let j = 0; j < 2 + next(6); j++) lines.push(" ".repeat(next(5)) + pieces[next(pieces.length)]);
      const text = lines.join("\n");
      const got = ours(text);
      if (got === "refused") continue;
      accepted++;
      expect(got, JSON.stringify(text)).toEqual(reference(text));
    }
    expect(accepted).toBeGreaterThan(100);
  });
});
