import { describe, expect, it } from "vitest";
import { UriTemplate } from "./uri-template.js";

describe("UriTemplate", () => {
  it("matches variables of one or more characters other than /, percent-decoded", () => {
    const template = new UriTemplate("test://items/{id}/data");
    expect(template.variables).toEqual(["id"]);
    expect(template.match("test://items/42/data")).toEqual({ id: "42" });
    expect(template.match("test://items/a%2Fb%20c/data")).toEqual({ id: "a/b c" });
    expect(template.match("test://items/%E0%A4%A/data")).toEqual({ id: "%E0%A4%A" });
    expect(template.match("test://items//data")).toBeUndefined();
    expect(template.match("test://items/a/b/data")).toBeUndefined();
    expect(template.match("test://items/42/data/")).toBeUndefined();
    expect(template.match("xtest://items/42/data")).toBeUndefined();
  });

  it("gives an earlier variable as many characters as the rest allows", () => {
    expect(new UriTemplate("{a}{b}").match("xyz")).toEqual({ a: "xy", b: "z" });
    expect(new UriTemplate("f:{name}.{ext}").match("f:a.tar.gz")).toEqual({ name: "a.tar", ext: "gz" });
    expect(new UriTemplate("{a}-{b}-{c}").match("1-2-3-4")).toEqual({ a: "1-2", b: "3", c: "4" });
    expect(new UriTemplate("{a}-{b}").match("-x")).toBeUndefined();
    expect(new UriTemplate("{a}{b}{c}").match("xy")).toBeUndefined();
  });

  it("refuses templates it cannot match", () => {
    expect(() => new UriTemplate("a://{id")).toThrow(/unclosed/);
    expect(() => new UriTemplate("a://{+id}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("a://{id}/{id}")).toThrow(/repeats/);
  });

  it("answers a long URI that almost matches without backtracking over it", () => {
    // Found by the URI-template property test: the ([^/]+) regular expression backtracked polynomially, and a
    // 3,000-character URI against {a}{b}{c} took 12 s (any client's resources/read could stall the server). Each
    // call below took minutes before; the test timeout reports that, once the call returns.
    expect(new UriTemplate("{a}{b}{c}").match(`${"x".repeat(8_000)}/`)).toBeUndefined();
    expect(new UriTemplate("{a}-{b}-{c}-{d}").match(`${"-".repeat(1_000)}/`)).toBeUndefined();
    expect(
      new UriTemplate("file:///{dir}/{name}.{ext}").match(`file:///d/${".".repeat(200_000)}/`),
    ).toBeUndefined();
    const long = "x".repeat(200_000);
    expect(new UriTemplate("{a}{b}").match(long)).toEqual({ a: long.slice(1), b: "x" });
    expect(new UriTemplate("r://{a}").match(`r://${"/".repeat(200_000)}`)).toBeUndefined();
  });
});
