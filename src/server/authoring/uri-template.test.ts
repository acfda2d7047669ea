import { describe, expect, it } from "vitest";
import { type ExpandValues, MAX_TEMPLATE_URI_LENGTH, UriTemplate } from "./uri-template.js";

/** The variables of RFC 6570 section 3.2 (the `keys` map left out: maps are not supported). */
const RFC: ExpandValues = {
  count: ["one", "two", "three"],
  dom: ["example", "com"],
  dub: "me/too",
  hello: "Hello World!",
  half: "50%",
  var: "value",
  who: "fred",
  base: "http://example.com/home/",
  path: "/foo/bar",
  list: ["red", "green", "blue"],
  v: "6",
  x: "1024",
  y: "768",
  empty: "",
  empty_keys: [],
};

/** RFC 6570 section 3.2.2-3.2.9: template, expansion (templates that repeat a variable left out). */
const EXPANSIONS: [string, string][] = [
  ["{var}", "value"],
  ["{hello}", "Hello%20World%21"],
  ["{half}", "50%25"],
  ["O{empty}X", "OX"],
  ["O{undef}X", "OX"],
  ["{x,y}", "1024,768"],
  ["{x,hello,y}", "1024,Hello%20World%21,768"],
  ["?{x,empty}", "?1024,"],
  ["?{x,undef}", "?1024"],
  ["?{undef,y}", "?768"],
  ["{var:3}", "val"],
  ["{var:30}", "value"],
  ["{list}", "red,green,blue"],
  ["{list*}", "red,green,blue"],
  ["{+var}", "value"],
  ["{+hello}", "Hello%20World!"],
  ["{+half}", "50%25"],
  ["{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"],
  ["{+base}index", "http://example.com/home/index"],
  ["O{+empty}X", "OX"],
  ["{+path}/here", "/foo/bar/here"],
  ["here?ref={+path}", "here?ref=/foo/bar"],
  ["up{+path}{var}/here", "up/foo/barvalue/here"],
  ["{+x,hello,y}", "1024,Hello%20World!,768"],
  ["{+path,x}/here", "/foo/bar,1024/here"],
  ["{+path:6}/here", "/foo/b/here"],
  ["{+list*}", "red,green,blue"],
  ["{#var}", "#value"],
  ["{#hello}", "#Hello%20World!"],
  ["foo{#empty}", "foo#"],
  ["foo{#undef}", "foo"],
  ["{#x,hello,y}", "#1024,Hello%20World!,768"],
  ["{#path,x}/here", "#/foo/bar,1024/here"],
  ["{#path:6}/here", "#/foo/b/here"],
  ["{#list*}", "#red,green,blue"],
  ["{.who}", ".fred"],
  ["{.half,who}", ".50%25.fred"],
  ["www{.dom*}", "www.example.com"],
  ["X{.var}", "X.value"],
  ["X{.empty}", "X."],
  ["X{.undef}", "X"],
  ["X{.var:3}", "X.val"],
  ["X{.list}", "X.red,green,blue"],
  ["X{.list*}", "X.red.green.blue"],
  ["{/who}", "/fred"],
  ["{/half,who}", "/50%25/fred"],
  ["{/who,dub}", "/fred/me%2Ftoo"],
  ["{/var,empty}", "/value/"],
  ["{/var,undef}", "/value"],
  ["{/var,x}/here", "/value/1024/here"],
  ["{/list}", "/red,green,blue"],
  ["{/list*}", "/red/green/blue"],
  ["{/list*,path:4}", "/red/green/blue/%2Ffoo"],
  ["{;who}", ";who=fred"],
  ["{;half}", ";half=50%25"],
  ["{;empty}", ";empty"],
  ["{;v,empty,who}", ";v=6;empty;who=fred"],
  ["{;v,bar,who}", ";v=6;who=fred"],
  ["{;x,y,empty}", ";x=1024;y=768;empty"],
  ["{;hello:5}", ";hello=Hello"],
  ["{;list}", ";list=red,green,blue"],
  ["{;list*}", ";list=red;list=green;list=blue"],
  ["{?who}", "?who=fred"],
  ["{?half}", "?half=50%25"],
  ["{?x,y}", "?x=1024&y=768"],
  ["{?x,y,empty}", "?x=1024&y=768&empty="],
  ["{?x,y,undef}", "?x=1024&y=768"],
  ["{?var:3}", "?var=val"],
  ["{?list}", "?list=red,green,blue"],
  ["{?list*}", "?list=red&list=green&list=blue"],
  ["{&who}", "&who=fred"],
  ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
  ["{&x,y,empty}", "&x=1024&y=768&empty="],
  ["{&list*}", "&list=red&list=green&list=blue"],
];

describe("UriTemplate.expand", () => {
  it.each(EXPANSIONS)("expands %s as RFC 6570 section 3.2 does", (template, expansion) => {
    expect(new UriTemplate(template).expand(RFC)).toBe(expansion);
  });

  it("percent-encodes non-ASCII as UTF-8 and a lone surrogate as U+FFFD", () => {
    expect(new UriTemplate("{v}").expand({ v: "é😀" })).toBe("%C3%A9%F0%9F%98%80");
    expect(new UriTemplate("{+v}").expand({ v: "a%2Fb%zz" })).toBe("a%2Fb%25zz");
    expect(new UriTemplate("{v}").expand({ v: "\ud800x" })).toBe("%EF%BF%BDx");
  });
});

describe("UriTemplate.match, per operator", () => {
  const cases: [string, string, object | undefined][] = [
    // Simple: one character at least, no / ? #, percent-decoded; an earlier variable takes what it can.
    ["test://items/{id}/data", "test://items/a%2Fb%20c/data", { id: "a/b c" }],
    ["test://items/{id}/data", "test://items//data", undefined],
    ["test://items/{id}", "test://items/a?b", undefined],
    ["{x,y}", "1024,768", { x: "1024", y: "768" }],
    ["{x,y}", "1,2,3", { x: "1,2", y: "3" }],
    ["{x,y}", "1024", { x: "1024" }],
    ["{list*}", "red,green,blue", { list: ["red", "green", "blue"] }],
    ["{hello}", "Hello%20World%21", { hello: "Hello World!" }],
    ["{id}", "%E0%A4%A", { id: "%E0%A4%A" }],
    // Reserved: may hold / (and ? or # unless a later part of the template produces them).
    ["file:///{+path}", "file:///a/b%20c/d.txt", { path: "a/b c/d.txt" }],
    ["file:///{+path}", "file:///a?b#c", { path: "a?b#c" }],
    ["{+path}/here", "/foo/bar/here", { path: "/foo/bar" }],
    ["{+path,x}/here", "/foo/bar,1024/here", { path: "/foo/bar", x: "1024" }],
    ["file:///{+path}{?rev}", "file:///a/b?rev=2", { path: "a/b", rev: "2" }],
    ["file:///{+path}{#line}", "file:///a/b#L10", { path: "a/b", line: "L10" }],
    ["file:///{+path}", "file:///", undefined],
    // Fragment.
    ["doc://x{#section}", "doc://x#intro/part%201", { section: "intro/part 1" }],
    ["doc://x{#section}", "doc://x", {}],
    ["{#x,y}", "#1024,768", { x: "1024", y: "768" }],
    // Label: a plain variable holds no dot; the expression before it leaves it the last extension.
    ["f:{name}{.ext}", "f:a.tar.gz", { name: "a.tar", ext: "gz" }],
    ["f:{name}{.ext}", "f:readme", { name: "readme" }],
    ["file:///{+path}{.ext}", "file:///dir.v2/x.txt", { path: "dir.v2/x", ext: "txt" }],
    ["www{.dom*}", "www.example.com", { dom: ["example", "com"] }],
    ["X{.list}", "X.red,green,blue", { list: "red,green,blue" }],
    // Path segments.
    ["repo://r{/path*}", "repo://r/src/lib/a%2Fb.ts", { path: ["src", "lib", "a/b.ts"] }],
    ["repo://r{/path*}", "repo://r", {}],
    ["repo://r{/who}", "repo://r/a/b", undefined],
    ["{/who,dub}", "/fred/me%2Ftoo", { who: "fred", dub: "me/too" }],
    ["{/list*,path:4}", "/red/green/blue/%2Ffoo", { list: ["red", "green", "blue"], path: "/foo" }],
    ["repo://r{/path*}{.format}", "repo://r/a/b.json", { path: ["a", "b"], format: "json" }],
    // Path-style parameters: named, any order, undeclared names ignored.
    ["m://x{;v,empty,who}", "m://x;who=fred;v=6;empty;other=1", { v: "6", empty: "", who: "fred" }],
    ["m://x{;list*}", "m://x;list=red;list=green", { list: ["red", "green"] }],
    // Query and continuation: one shared query, any order, the first value of a plain variable.
    ["search://{?q,limit}", "search://?limit=10&q=a%20b", { q: "a b", limit: "10" }],
    ["search://{?q,limit}", "search://?q=x&q=y", { q: "x" }],
    ["search://{?q,limit}", "search://", {}],
    ["search://{?q}{&page}", "search://?q=1&page=2", { q: "1", page: "2" }],
    ["search://{?q}{&page}", "search://?page=2&q=1", { q: "1", page: "2" }],
    ["s://?fixed=yes{&x}", "s://?fixed=yes&x=1024", { x: "1024" }],
    ["s://{?list*}", "s://?list=red&list=green", { list: ["red", "green"] }],
    ["s://{?q}", "s://?q=a/b?c", { q: "a/b?c" }],
    ["s://{?q}", "s://?q=a#b", undefined],
    ["items://{id}{?fields}", "items://42?fields=a,b", { id: "42", fields: "a,b" }],
  ];
  it.each(cases)("%s against %s", (template, uri, expected) => {
    expect(new UriTemplate(template).match(uri)).toEqual(expected);
  });

  it("gives back, from every RFC 6570 expansion, the values that produced it (defined, unclipped)", () => {
    const roundTrips = [
      "{var}",
      "{x,y}",
      "{+base}index",
      "{+path}/here",
      "{#hello}",
      "X{.var}",
      "{/list*}",
      "{;x,y}",
      "{?x,y}",
      "{?list*}",
      "?fixed=yes{&x}",
    ];
    for (const text of roundTrips) {
      const template = new UriTemplate(text);
      const expected = Object.fromEntries(template.variables.map((name) => [name, RFC[name]]));
      expect(template.match(template.expand(RFC)), text).toEqual(expected);
    }
  });

  it("gives an earlier variable as many characters as the rest allows", () => {
    expect(new UriTemplate("{a}{b}").match("xyz")).toEqual({ a: "xy", b: "z" });
    expect(new UriTemplate("f:{name}.{ext}").match("f:a.tar.gz")).toEqual({ name: "a.tar", ext: "gz" });
    expect(new UriTemplate("{a}-{b}-{c}").match("1-2-3-4")).toEqual({ a: "1-2", b: "3", c: "4" });
    expect(new UriTemplate("{a}-{b}").match("-x")).toBeUndefined();
    expect(new UriTemplate("{a}{b}{c}").match("xy")).toBeUndefined();
  });

  it("refuses templates it cannot match", () => {
    expect(new UriTemplate("a://{id}/{+rest}").variables).toEqual(["id", "rest"]);
    expect(() => new UriTemplate("a://{id")).toThrow(/unclosed/);
    expect(() => new UriTemplate("a://{=id}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("a://{id-x}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("a://{id,}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("a://{id:0}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("a://{}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("a://{id}/{id}")).toThrow(/repeats/);
    expect(() => new UriTemplate("a://{id}{?id}")).toThrow(/repeats/);
  });

  it("matches no URI longer than 65,536 characters", () => {
    const template = new UriTemplate("file:///{+path}");
    const at = (length: number) => `file:///${"a".repeat(length - "file:///".length)}`;
    expect(template.match(at(MAX_TEMPLATE_URI_LENGTH))).toEqual({ path: "a".repeat(65_528) });
    expect(template.match(at(MAX_TEMPLATE_URI_LENGTH + 1))).toBeUndefined();
    expect(MAX_TEMPLATE_URI_LENGTH).toBe(65_536);
  });

  it("answers a long URI that almost matches without backtracking over it", () => {
    // Found by the URI-template property test: the ([^/]+) regular expression backtracked polynomially, and a
    // 3,000-character URI against {a}{b}{c} took 12 s (any client's resources/read could stall the server). Each
    // call below took minutes before; the test timeout reports that, once the call returns.
    expect(new UriTemplate("{a}{b}{c}").match(`${"x".repeat(8_000)}/`)).toBeUndefined();
    expect(new UriTemplate("{a}-{b}-{c}-{d}").match(`${"-".repeat(1_000)}/`)).toBeUndefined();
    expect(
      new UriTemplate("file:///{dir}/{name}.{ext}").match(`file:///d/${".".repeat(60_000)}/`),
    ).toBeUndefined();
    const long = "x".repeat(65_536);
    expect(new UriTemplate("{a}{b}").match(long)).toEqual({ a: long.slice(1), b: "x" });
    expect(new UriTemplate("r://{a}").match(`r://${"/".repeat(60_000)}`)).toBeUndefined();
    // The new operators: lazy loops, optional expressions and shared classes, against the same kind of input.
    expect(new UriTemplate("{+a}{.b}{/c*}{?d}").match(`${".".repeat(60_000)}?#`)).toBeUndefined();
    expect(new UriTemplate("{+a}{+b}{+c}/x").match(`${"/".repeat(60_000)}y`)).toBeUndefined();
    expect(new UriTemplate("s://{?q}{&a}{&b}").match(`s://?${"&".repeat(60_000)}#`)).toBeUndefined();
  });
});
