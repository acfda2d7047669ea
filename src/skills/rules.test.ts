import { describe, expect, it } from "vitest";
import { fromBase64, skillDigest, toBase64, utf8 } from "./bytes.js";
import { METADATA_LIMITS, SKILL_LIMITS } from "./constants.js";
import { metadataBoundsProblem, skillEntryProblems, skillLimitProblem } from "./entry.js";
import {
  frontmatterDifferences,
  frontmatterProblems,
  parseSkillMd,
  SKILL_NAME_PATTERN,
} from "./frontmatter.js";
import type { SkillEntry } from "./types.js";
import { canonicalUri, isRegName, isWithinSkill, skillUriParts, uriProblem } from "./uri.js";
import { FrontmatterError } from "./yaml.js";

const HELLO = "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
const DIGEST = `sha256:${"a".repeat(64)}`;

function entry(overrides: Partial<SkillEntry> = {}): SkillEntry {
  return {
    uri: "skill://pdf-processing/SKILL.md",
    frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" },
    resources: [
      { uri: "skill://pdf-processing/SKILL.md", digest: DIGEST, size: 10 },
      { uri: "skill://pdf-processing/references/FORMS.md", digest: DIGEST, size: 5 },
    ],
    ...overrides,
  };
}

describe("digest and size (SEP-2640 §Digest)", () => {
  it("hashes the raw bytes: known answer, text and base64 of the same bytes agree, CRLF and LF differ", async () => {
    expect(await skillDigest(utf8("hello"))).toBe(HELLO);
    const bytes = utf8("---\nname: x\n---\nbody é\n");
    const blob = fromBase64(toBase64(bytes)) as Uint8Array;
    expect(await skillDigest(blob)).toBe(await skillDigest(bytes));
    expect(await skillDigest(utf8("a\r\nb"))).not.toBe(await skillDigest(utf8("a\nb")));
    expect(await skillDigest(utf8("\ufeffa"))).not.toBe(await skillDigest(utf8("a")));
  });

  it("round-trips base64 and refuses malformed base64", () => {
    for (const n of [0, 1, 2, 3, 4, 255]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37) % 256);
      expect(fromBase64(toBase64(bytes))).toEqual(bytes);
    }
    for (const bad of ["abc", "ab=c", "a===", "ab!d", "=abc"]) expect(fromBase64(bad)).toBeUndefined();
  });
});

describe("names (Agent Skills rules, the harness's regex)", () => {
  it.each([
    ["a", true],
    ["a".repeat(64), true],
    ["a".repeat(65), false],
    ["pdf-processing", true],
    ["a--b", false],
    ["-a", false],
    ["a-", false],
    ["Abc", false],
    ["a_b", false],
    ["", false],
    ["a1-2b", true],
  ])("%s -> %s", (name, valid) => {
    expect(SKILL_NAME_PATTERN.test(name)).toBe(valid);
    const harness = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
    expect(harness.test(name)).toBe(valid);
  });
});

describe("skill URIs (SEP-2640 §URI rules and mcpkit's hardening)", () => {
  it("takes root, nested and other-scheme skill URIs apart", () => {
    expect(skillUriParts("skill://pdf/SKILL.md")).toEqual({
      root: "skill://pdf",
      name: "pdf",
      authority: "pdf",
    });
    expect(skillUriParts("skill://acme/billing/refunds/SKILL.md")).toEqual({
      root: "skill://acme/billing/refunds",
      name: "refunds",
      authority: "acme",
    });
    expect(skillUriParts("github://owner/repo/skills/refunds/SKILL.md")?.name).toBe("refunds");
    expect(skillUriParts("skill://SKILL.md")).toBeUndefined();
    expect(skillUriParts("skill://pdf/README.md")).toBeUndefined();
    expect(skillUriParts("not a uri")).toBeUndefined();
  });

  it.each([
    ["skill://pdf/SKILL.md", undefined],
    ["skill://acme/billing/refunds/references/a%20b.md", undefined],
    ["github://owner/repo/skills/refunds/SKILL.md", undefined],
    ["skill://pdf/SKILL.md?x=1", "has a query or fragment"],
    ["skill://pdf/SKILL.md#top", "has a query or fragment"],
    ["skill://user@pdf/SKILL.md", "has userinfo"],
    ["skill://pdf//SKILL.md", "has an empty segment"],
    ["skill://pdf/", "has an empty segment"],
    ["skill://pdf/./SKILL.md", "has a . or .. segment"],
    ["skill://pdf/../x/SKILL.md", "has a . or .. segment"],
    ["skill://pdf/%2e%2E/x", "has a . or .. segment"],
    ["skill://pdf/a\\b", "holds a backslash or NUL"],
    ["skill://pdf/a\0b", "holds a backslash or NUL"],
    ["skill://pdf/a%00b", "encodes a /, backslash or NUL"],
    ["skill://pdf/a%2Fb", "encodes a /, backslash or NUL"],
    ["skill://pdf/a%5cb", "encodes a /, backslash or NUL"],
    ["skill://pdf/a%zz", "holds a malformed percent escape"],
    ["skill://pdf/a%252e", "is double-encoded"],
    ["pdf/SKILL.md", 'is not a "scheme://..." URI'],
  ])("%s: %s", (uri, problem) => {
    expect(uriProblem(uri)).toBe(problem);
  });

  it("accepts everything the harness's plain prefix rule accepts among well-formed URIs, and agrees on within-skill", () => {
    const skill = "skill://acme/pdf/SKILL.md";
    const harness = (uri: string) => uri === skill || uri.startsWith("skill://acme/pdf/");
    for (const uri of [
      skill,
      "skill://acme/pdf/a.md",
      "skill://acme/pdf/x/y/z.md",
      "skill://acme/pdfx/a.md",
      "skill://acme/a.md",
    ]) {
      expect(isWithinSkill(skill, uri)).toBe(harness(uri));
    }
  });

  it("canonicalizes so that spellings of one file compare equal, and keeps reserved escapes distinct", () => {
    expect(canonicalUri("SKILL://Acme/pdf/%7Efile.md")).toBe("skill://acme/pdf/~file.md");
    expect(canonicalUri("skill://pdf/a%2fb")).toBe("skill://pdf/a%2Fb");
    expect(canonicalUri("skill://pdf/a%21")).not.toBe(canonicalUri("skill://pdf/a!"));
  });

  it("checks the authority as an RFC 3986 reg-name", () => {
    expect(isRegName("acme-corp.example")).toBe(true);
    expect(isRegName("a%41")).toBe(true);
    expect(isRegName("a b")).toBe(false);
    expect(isRegName("a[b]")).toBe(false);
  });
});

describe("SKILL.md frontmatter (split as the harness does)", () => {
  it("splits with an optional BOM, CRLF, and trailing blanks after the closing line", () => {
    const text = "\ufeff---\r\nname: pdf\r\ndescription: d\r\n---  \t\r\n# Body\r\n";
    expect(parseSkillMd(text)).toEqual({
      frontmatter: { name: "pdf", description: "d" },
      yaml: "name: pdf\r\ndescription: d",
      body: "# Body\r\n",
    });
    expect(parseSkillMd("---\nname: x\ndescription: y\n---").body).toBe("");
  });

  it.each([
    "name: x\n---\n",
    "---\nname: x\n",
    "--- \nname: x\n---\n",
    "----\nname: x\n---\n",
    "\n---\nname: x\n---\n",
    "---\n---\n",
  ])("refuses %j", (text) => {
    expect(() => parseSkillMd(text)).toThrow(FrontmatterError);
  });

  it("numbers a YAML refusal by its line in the file", () => {
    expect(() => parseSkillMd("---\nname: x\nbad: &a 1\n---\n")).toThrow(/^line 3: /);
  });

  it("checks the Agent Skills fields, crossing each bound", () => {
    const base = { name: "pdf", description: "d" };
    expect(frontmatterProblems(base)).toEqual([]);
    expect(frontmatterProblems({ ...base, description: "é".repeat(1024) })).toEqual([]);
    expect(frontmatterProblems({ ...base, description: "é".repeat(1025) })).toHaveLength(1);
    expect(frontmatterProblems({ ...base, description: "" })).toHaveLength(1);
    expect(frontmatterProblems({ ...base, compatibility: "x".repeat(500) })).toEqual([]);
    expect(frontmatterProblems({ ...base, compatibility: "x".repeat(501) })).toHaveLength(1);
    expect(frontmatterProblems({ ...base, metadata: { a: "b" } })).toEqual([]);
    expect(frontmatterProblems({ ...base, metadata: { a: 1 } })).toHaveLength(1);
    expect(frontmatterProblems({ ...base, "allowed-tools": ["Read"] })).toHaveLength(1);
    expect(frontmatterProblems({ ...base, name: "Bad" })).toHaveLength(1);
    expect(frontmatterProblems([])).toEqual(["frontmatter: must be an object"]);
    const reserved = { ...base, metadata: { "io.modelcontextprotocol/x": "y" } };
    expect(frontmatterProblems(reserved)).toEqual([]);
    expect(frontmatterProblems(reserved, { reserved: "refuse" })).toHaveLength(1);
  });

  it("compares frontmatter field by field, with no coercion and a missing key unequal to null", () => {
    expect(frontmatterDifferences({ a: [1, { b: "c" }], d: "e" }, { d: "e", a: [1, { b: "c" }] })).toEqual(
      [],
    );
    expect(frontmatterDifferences({ version: "1.0" }, { version: 1 })).toEqual([
      'frontmatter.version: "1.0" in the entry, 1 in SKILL.md',
    ]);
    expect(frontmatterDifferences({ a: null }, {})).toEqual(["frontmatter.a: only in the entry"]);
    expect(frontmatterDifferences({ a: [1] }, { a: [1, 2] })).toHaveLength(1);
    expect(frontmatterDifferences({}, { extra: "x" })).toEqual(["frontmatter.extra: only in SKILL.md"]);
  });
});

describe("skill entries (SEP-2640 §Skill entry)", () => {
  it("accepts a valid entry and a dynamic one", () => {
    expect(skillEntryProblems(entry())).toEqual([]);
    expect(skillEntryProblems(entry({ resources: "dynamic" }))).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    ["not an object", [], /entry: must be an object/],
    ["no uri", { ...entry(), uri: "" }, /uri: must be a non-empty string/],
    ["uri not SKILL.md", entry({ uri: "skill://pdf-processing/README.md" }), /must end in/],
    ["hardened uri", entry({ uri: "skill://pdf-processing/../SKILL.md" }), /\. or \.\./],
    [
      "name differs from the URI",
      entry({ frontmatter: { name: "other", description: "d" } }),
      /differs from the URI/,
    ],
    ["no resources", { ...entry(), resources: undefined }, /array or "dynamic"/],
    ["resources a string", entry({ resources: "static" as "dynamic" }), /array or "dynamic"/],
    ["empty resources", entry({ resources: [] }), /must list the skill's SKILL.md/],
    [
      "SKILL.md missing",
      entry({ resources: [{ uri: "skill://pdf-processing/a.md", digest: DIGEST, size: 1 }] }),
      /own/,
    ],
    [
      "duplicate after canonicalization",
      entry({
        resources: [
          { uri: "skill://pdf-processing/SKILL.md", digest: DIGEST, size: 1 },
          { uri: "skill://pdf-processing/%53KILL.md", digest: DIGEST, size: 1 },
        ],
      }),
      /listed twice/,
    ],
    [
      "outside the skill",
      entry({
        resources: [
          { uri: "skill://pdf-processing/SKILL.md", digest: DIGEST, size: 1 },
          { uri: "skill://other/a.md", digest: DIGEST, size: 1 },
        ],
      }),
      /outside the skill/,
    ],
    [
      "uppercase digest",
      entry({
        resources: [{ uri: "skill://pdf-processing/SKILL.md", digest: DIGEST.toUpperCase(), size: 1 }],
      }),
      /digest/,
    ],
    [
      "negative size",
      entry({ resources: [{ uri: "skill://pdf-processing/SKILL.md", digest: DIGEST, size: -1 }] }),
      /size/,
    ],
    [
      "fractional size",
      entry({ resources: [{ uri: "skill://pdf-processing/SKILL.md", digest: DIGEST, size: 1.5 }] }),
      /size/,
    ],
    ["_meta not an object", { ...entry(), _meta: [] }, /_meta: must be an object/],
  ])("refuses %s", (_, value, problem) => {
    expect(skillEntryProblems(value).join("\n")).toMatch(problem);
  });

  it("publishes exactly the SEP's members, no reserved metadata keys and a reg-name authority; receives leniently", () => {
    const extra = {
      ...entry(),
      extra: 1,
      resources: [{ uri: "skill://pdf-processing/SKILL.md", digest: DIGEST, size: 1, x: 2 }],
    };
    expect(skillEntryProblems(extra)).toEqual([]);
    expect(skillEntryProblems(extra, { mode: "publish" })).toHaveLength(2);
    const reserved = entry({
      frontmatter: {
        name: "pdf-processing",
        description: "d",
        metadata: { "io.modelcontextprotocol/a": "b" },
      },
    });
    expect(skillEntryProblems(reserved)).toEqual([]);
    expect(skillEntryProblems(reserved, { mode: "publish" })).toHaveLength(1);
  });

  it("bounds frontmatter and _meta: depth 32, 16,384 nodes, 1 MiB of JSON, each crossed", () => {
    const nest = (levels: number): unknown => (levels === 1 ? "x" : { k: nest(levels - 1) });
    expect(metadataBoundsProblem(nest(METADATA_LIMITS.depth))).toBeUndefined();
    expect(metadataBoundsProblem(nest(METADATA_LIMITS.depth + 1))).toMatch(/deeper/);
    expect(metadataBoundsProblem(Array.from({ length: METADATA_LIMITS.nodes - 1 }, () => 0))).toBeUndefined();
    expect(metadataBoundsProblem(Array.from({ length: METADATA_LIMITS.nodes }, () => 0))).toMatch(/nodes/);
    const big = (n: number) => ({ s: "x".repeat(n - 8) }); // {"s":""} is 8 bytes
    expect(metadataBoundsProblem(big(METADATA_LIMITS.bytes))).toBeUndefined();
    expect(metadataBoundsProblem(big(METADATA_LIMITS.bytes + 1))).toMatch(/bytes/);
    const deepMeta = { ...entry(), _meta: nest(METADATA_LIMITS.depth + 1) as { [key: string]: unknown } };
    expect(skillEntryProblems(deepMeta).join()).toMatch(/_meta: nested deeper/);
  });

  it("judges the per-skill limits from the entry alone: 512 resources and 16 MiB, each crossed", () => {
    const files = (count: number, size: number) =>
      Array.from({ length: count }, (_, i) => ({
        uri: i === 0 ? "skill://pdf-processing/SKILL.md" : `skill://pdf-processing/f${i}`,
        digest: DIGEST,
        size,
      }));
    expect(skillLimitProblem(entry({ resources: files(SKILL_LIMITS.resourcesPerSkill, 1) }))).toBeUndefined();
    expect(skillLimitProblem(entry({ resources: files(SKILL_LIMITS.resourcesPerSkill + 1, 1) }))).toMatch(
      /513 resources/,
    );
    const half = SKILL_LIMITS.bytesPerSkill / 2;
    expect(skillLimitProblem(entry({ resources: files(2, half) }))).toBeUndefined();
    const over = entry({
      resources: [...files(2, half), { uri: "skill://pdf-processing/z", digest: DIGEST, size: 1 }],
    });
    expect(skillLimitProblem(over)).toMatch(/16777217 bytes/);
    expect(skillLimitProblem(entry({ resources: files(3, 1) }), { maxResources: 2 })).toMatch(/more than 2/);
    expect(skillLimitProblem(entry({ resources: "dynamic" }))).toBeUndefined();
  });
});
