import {
  GetSkillResultSchema,
  ListSkillsResultSchema,
  ReadResourceDirectoryResultSchema,
  SkillSchema,
} from "@modelcontextprotocol/core/ext/skills";
import { describe, expect, it } from "vitest";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { fromBase64, skillDigest, utf8 } from "./bytes.js";
import { createSkillCatalogue, type SkillDefinition } from "./catalogue.js";
import { skillEntryProblems } from "./entry.js";
import { skillsExtension, skillsHandlers } from "./extension.js";
import { parseSkillMd } from "./frontmatter.js";
import { renderSkillMd } from "./render.js";
import { checkSkillsSettings, skillsSettingsOf } from "./settings.js";
import type { SkillSource } from "./source.js";

const MODERN = { era: "2026-07-28" } as const;
const LEGACY = { era: "2025-11-25" } as const;

const PDF: SkillDefinition = {
  frontmatter: {
    name: "pdf-processing",
    description: "Extract, fill, and assemble PDF documents",
    license: "MIT",
    metadata: { author: "acme", version: "1.0" },
    "allowed-tools": "Read Bash(pdftk:*)",
  },
  body: "# PDF\nSee [forms](references/FORMS.md).\n",
  files: {
    "references/FORMS.md": "# Forms\n",
    "scripts/fill.py": "print('x')\n",
    "assets/logo.png": Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff]),
  },
};
const REFUNDS: SkillDefinition = {
  prefix: "acme/billing",
  skillMd: "---\nname: refunds\ndescription: Handle refunds\nversion: 1.0\n---\nRefund things.\n",
};

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** The harness's JSON-RPC error check: the code a handler's error would be sent with. */
async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await errorOf(promise);
  return error instanceof JsonRpcError ? error.code : undefined;
}

describe("the skill catalogue", () => {
  it("builds entries with digests, sizes and verbatim frontmatter, sorted by URI", async () => {
    const catalogue = await createSkillCatalogue([PDF, REFUNDS]);
    expect(catalogue.entries.map((e) => e.uri)).toEqual([
      "skill://acme/billing/refunds/SKILL.md",
      "skill://pdf-processing/SKILL.md",
    ]);
    const pdf = catalogue.get("skill://pdf-processing/SKILL.md");
    expect(pdf?.frontmatter).toEqual(PDF.frontmatter);
    const skillMd = renderSkillMd(PDF.frontmatter as never, PDF.body as string);
    expect(pdf?.resources).toContainEqual({
      uri: "skill://pdf-processing/SKILL.md",
      digest: await skillDigest(utf8(skillMd)),
      size: utf8(skillMd).length,
    });
    expect(Array.isArray(pdf?.resources) && pdf.resources.map((r) => r.uri)).toEqual([
      "skill://pdf-processing/SKILL.md",
      "skill://pdf-processing/assets/logo.png",
      "skill://pdf-processing/references/FORMS.md",
      "skill://pdf-processing/scripts/fill.py",
    ]);
    // YAML 1.2 typing, as the harness parses: `version: 1.0` is the number 1.
    expect(catalogue.get("skill://acme/billing/refunds/SKILL.md")?.frontmatter.version).toBe(1);
    for (const entry of catalogue.entries) {
      expect(skillEntryProblems(entry, { mode: "publish" })).toEqual([]);
      expect(SkillSchema.safeParse(entry).success).toBe(true);
      expect(Object.isFrozen(entry.resources)).toBe(true);
    }
  });

  it("serves SKILL.md as text/markdown text, text files as text, bytes as a blob, and nothing else", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    const skillMd = catalogue.read("skill://pdf-processing/SKILL.md")?.contents[0] as {
      text: string;
      mimeType: string;
    };
    expect(skillMd.mimeType).toBe("text/markdown");
    expect(parseSkillMd(skillMd.text).frontmatter).toEqual(PDF.frontmatter);
    expect(catalogue.read("skill://pdf-processing/references/FORMS.md")?.contents[0]).toEqual({
      uri: "skill://pdf-processing/references/FORMS.md",
      mimeType: "text/markdown",
      text: "# Forms\n",
    });
    const logo = catalogue.read("SKILL://pdf-processing/assets/logo.png")?.contents[0] as { blob: string };
    expect(fromBase64(logo.blob)).toEqual(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff]));
    expect(catalogue.read("skill://pdf-processing/assets")).toBeUndefined();
    expect(catalogue.read("skill://pdf-processing/nope.md")).toBeUndefined();
  });

  it("lists each SKILL.md as a resource named and described by its frontmatter", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    expect(catalogue.resources()).toEqual([
      {
        uri: "skill://pdf-processing/SKILL.md",
        name: "pdf-processing",
        description: "Extract, fill, and assemble PDF documents",
        mimeType: "text/markdown",
        size: expect.any(Number),
      },
    ]);
  });

  it("serves a nested skill as its own entry, its files in both", async () => {
    const nested = "---\nname: forms\ndescription: Forms only\n---\n";
    const catalogue = await createSkillCatalogue([
      { ...PDF, files: { ...PDF.files, "forms/SKILL.md": nested } },
      { prefix: "pdf-processing", skillMd: nested },
    ]);
    const outer = catalogue.get("skill://pdf-processing/SKILL.md");
    const inner = catalogue.get("skill://pdf-processing/forms/SKILL.md");
    expect(Array.isArray(outer?.resources) && outer.resources.some((r) => r.uri === inner?.uri)).toBe(true);
    expect(catalogue.readDirectory("skill://pdf-processing", undefined)?.resources).toContainEqual({
      uri: "skill://pdf-processing/forms",
      name: "forms",
      mimeType: "inode/directory",
    });
  });

  it.each<[string, SkillDefinition[], object | undefined, RegExp]>([
    ["a bad name", [{ skillMd: "---\nname: Bad\ndescription: d\n---\n" }], undefined, /frontmatter\.name/],
    ["no description", [{ skillMd: "---\nname: a\n---\n" }], undefined, /description/],
    ["unreadable frontmatter", [{ skillMd: "---\nname: &a x\n---\n" }], undefined, /cannot read/],
    ["no frontmatter", [{ skillMd: "# no frontmatter" }], undefined, /cannot read/],
    [
      "skillMd and frontmatter",
      [{ skillMd: "x", frontmatter: { name: "a", description: "b" } }],
      undefined,
      /not both/,
    ],
    ["neither", [{}], undefined, /needs skillMd/],
    ["unknown key", [{ ...PDF, extra: 1 } as SkillDefinition], undefined, /extra is not an option/],
    ["a .. file path", [{ ...PDF, files: { "../x": "y" } }], undefined, /relative path/],
    ["an empty prefix segment", [{ ...PDF, prefix: "a//b" }], undefined, /relative path/],
    [
      "a reserved metadata key",
      [{ frontmatter: { name: "a", description: "b", metadata: { "io.modelcontextprotocol/x": "y" } } }],
      undefined,
      /reserved/,
    ],
    ["the same skill twice", [PDF, PDF], undefined, /twice/],
    ["a file holding SKILL.md", [{ ...PDF, files: { "SKILL.md": "x" } }], undefined, /cannot hold SKILL.md/],
    ["a file with a bad content", [{ ...PDF, files: { a: 1 as never } }], undefined, /must be a string/],
    ["an unknown option", [PDF], { color: "red" }, /options\.color is not an option/],
    ["a bad scheme", [PDF], { scheme: "Sk ill" }, /scheme/],
    ["a zero page size", [PDF], { pageSize: 0 }, /pageSize/],
    [
      "a frontmatter too deep to write",
      [
        {
          frontmatter: {
            name: "a",
            description: "b",
            deep: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`),
          },
        },
      ],
      undefined,
      /nesting/,
    ],
  ])("refuses %s with INVALID_CONFIG", async (_, skills, options, message) => {
    const error = await errorOf(createSkillCatalogue(skills, options as never));
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("INVALID_CONFIG");
    expect((error as Error).message).toMatch(message);
  });

  it("refuses to publish a skill over the per-skill limits, each crossed (and raised)", async () => {
    const files = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}.md`, "x"]));
    await expect(createSkillCatalogue([{ ...PDF, files: files(511) }])).resolves.toBeDefined();
    await expect(createSkillCatalogue([{ ...PDF, files: files(512) }])).rejects.toThrow(/513 resources/);
    await expect(
      createSkillCatalogue([{ ...PDF, files: files(512) }], { limits: { maxResources: 513 } }),
    ).resolves.toBeDefined();
    const skillMdSize = utf8(renderSkillMd(PDF.frontmatter as never, "")).length;
    // Three files: one file of 16 MiB is over the per-file bound (maxFileBytes), crossed in test/limits/http-defaults.test.ts.
    const third = Math.floor((16 * 1024 * 1024 - skillMdSize) / 3);
    const big = (extra: number) =>
      ({
        frontmatter: PDF.frontmatter,
        files: {
          big1: new Uint8Array(third),
          big2: new Uint8Array(third),
          big3: new Uint8Array(16 * 1024 * 1024 - skillMdSize - 2 * third + extra),
        },
      }) as SkillDefinition;
    await expect(createSkillCatalogue([big(0)])).resolves.toBeDefined();
    await expect(createSkillCatalogue([big(1)])).rejects.toThrow(/16777217 bytes/);
  });
});

describe("the skills handlers", () => {
  it("pages skills/list: entries atomic, cursors resume, a foreign cursor is -32602", async () => {
    const catalogue = await createSkillCatalogue(
      [PDF, REFUNDS, { frontmatter: { name: "zeta", description: "z" } }],
      { pageSize: 1 },
    );
    const { skillsList } = skillsHandlers(catalogue);
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await skillsList(cursor === undefined ? {} : { cursor }, MODERN);
      expect(page.skills).toHaveLength(1);
      uris.push(...page.skills.map((s) => s.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(uris).toEqual(catalogue.entries.map((e) => e.uri));
    expect(await codeOf(skillsList({ cursor: "bm90LW91cnM" }, MODERN))).toBe(-32602);
    expect(await codeOf(skillsList({ cursor: 7 }, MODERN))).toBe(-32602);
  });

  it("resumes from a cursor whose unused low bits are set, as it always has", async () => {
    const catalogue = await createSkillCatalogue([PDF, REFUNDS], { pageSize: 1 });
    const { skillsList } = skillsHandlers(catalogue);
    const cursor = (await skillsList({}, MODERN)).nextCursor ?? "";
    // The last digit carries 2 or 4 unused bits (the length is not a multiple of 4): set the lowest one.
    expect(cursor.length % 4).not.toBe(0);
    const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = digits.indexOf(cursor.at(-1) ?? "");
    expect(last % 2).toBe(0);
    const loose = cursor.slice(0, -1) + digits[last + 1];
    expect((await skillsList({ cursor: loose }, MODERN)).skills).toEqual(
      (await skillsList({ cursor }, MODERN)).skills,
    );
  });

  it("pages a large catalogue: every entry exactly once, in order", async () => {
    const many = Array.from({ length: 2_000 }, (_, i) => ({
      prefix: `team${i % 7}`,
      frontmatter: { name: `skill-${i}`, description: `Skill ${i}` },
    }));
    const catalogue = await createSkillCatalogue(many, { pageSize: 64 });
    const { skillsList } = skillsHandlers(catalogue);
    const seen: string[] = [];
    let pages = 0;
    let cursor: string | undefined;
    do {
      const page = await skillsList(cursor === undefined ? {} : { cursor }, LEGACY);
      pages++;
      seen.push(...page.skills.map((s) => s.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages).toBe(Math.ceil(2_000 / 64));
    expect(seen).toEqual(catalogue.entries.map((e) => e.uri));
    expect(new Set(seen).size).toBe(2_000);
  });

  it("answers skills/get for every skill, listed or not, and -32602 for the harness's unknown URI", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    const { skillsGet } = skillsHandlers(catalogue);
    const result = await skillsGet({ uri: "skill://pdf-processing/SKILL.md" }, MODERN);
    expect(result.skill.uri).toBe("skill://pdf-processing/SKILL.md");
    expect(result).not.toHaveProperty("nextCursor");
    expect(
      await codeOf(skillsGet({ uri: "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md" }, MODERN)),
    ).toBe(-32602);
    expect(await codeOf(skillsGet({}, MODERN))).toBe(-32602);
    // An unlisted skill (a partial listing) still resolves.
    const partial: SkillSource = {
      list: () => ({ skills: [] }),
      get: (uri) => catalogue.get(uri),
      read: (uri) => catalogue.read(uri),
    };
    expect((await skillsHandlers(partial).skillsList({}, MODERN)).skills).toEqual([]);
    expect(
      (await skillsHandlers(partial).skillsGet({ uri: "skill://pdf-processing/SKILL.md" }, MODERN)).skill,
    ).toBeDefined();
  });

  it("shapes results per era: 2026 adds resultType and cache fields on list, get and directory reads; 2025 nothing else differs", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    const skills = skillsHandlers(catalogue, {
      directoryRead: true,
      cache: { ttlMs: 60_000, cacheScope: "private" },
    });
    const calls = [
      ["list", (ctx: typeof MODERN | typeof LEGACY) => skills.skillsList({}, ctx), ListSkillsResultSchema],
      [
        "get",
        (ctx: typeof MODERN | typeof LEGACY) =>
          skills.skillsGet({ uri: "skill://pdf-processing/SKILL.md" }, ctx),
        GetSkillResultSchema,
      ],
      [
        "dir",
        (ctx: typeof MODERN | typeof LEGACY) => skills.directoryRead({ uri: "skill://pdf-processing" }, ctx),
        ReadResourceDirectoryResultSchema,
      ],
    ] as const;
    for (const [, call, schema] of calls) {
      const modern = (await call(MODERN)) as unknown as { [key: string]: unknown };
      const legacy = (await call(LEGACY)) as unknown as { [key: string]: unknown };
      expect(modern).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "private" });
      expect(schema.safeParse(modern).success).toBe(true);
      const { resultType: _r, ttlMs: _t, cacheScope: _c, ...rest } = modern;
      expect(legacy).toEqual(rest);
    }
  });

  it("reads directories: direct children only, subdirectories as inode/directory, -32602 for a file or unknown URI", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    const { directoryRead } = skillsHandlers(catalogue, { directoryRead: true });
    const root = await directoryRead({ uri: "skill://pdf-processing" }, MODERN);
    expect(root.resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ["skill://pdf-processing/SKILL.md", "text/markdown"],
      ["skill://pdf-processing/assets", "inode/directory"],
      ["skill://pdf-processing/references", "inode/directory"],
      ["skill://pdf-processing/scripts", "inode/directory"],
    ]);
    const refs = await directoryRead({ uri: "skill://pdf-processing/references" }, MODERN);
    expect(refs.resources).toEqual([
      {
        uri: "skill://pdf-processing/references/FORMS.md",
        name: "FORMS.md",
        mimeType: "text/markdown",
        size: 8,
      },
    ]);
    expect(await codeOf(directoryRead({ uri: "skill://pdf-processing/SKILL.md" }, MODERN))).toBe(-32602);
    expect(await codeOf(directoryRead({ uri: "skill://nope" }, MODERN))).toBe(-32602);
    // Without directoryRead the method serves nothing.
    expect(
      await codeOf(skillsHandlers(catalogue).directoryRead({ uri: "skill://pdf-processing" }, MODERN)),
    ).toBe(-32602);
  });

  it("pages a directory read", async () => {
    const catalogue = await createSkillCatalogue([PDF], { pageSize: 2 });
    const { directoryRead } = skillsHandlers(catalogue, { directoryRead: true });
    const first = await directoryRead({ uri: "skill://pdf-processing" }, LEGACY);
    expect(first.resources).toHaveLength(2);
    const second = await directoryRead({ uri: "skill://pdf-processing", cursor: first.nextCursor }, LEGACY);
    expect(second.resources.map((r) => r.name)).toEqual(["references", "scripts"]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("never sends an invalid entry from a custom source (-32603 instead), nor another skill's entry", async () => {
    const bad = {
      uri: "skill://x/SKILL.md",
      frontmatter: { name: "y", description: "d" },
      resources: "dynamic" as const,
    };
    const source: SkillSource = { list: () => ({ skills: [bad] }), get: () => bad, read: () => undefined };
    const skills = skillsHandlers(source);
    const listed = await errorOf(skills.skillsList({}, MODERN));
    expect(listed).not.toBeInstanceOf(JsonRpcError);
    expect(String(listed)).toMatch(/invalid entry/);
    const good = { ...bad, frontmatter: { name: "x", description: "d" } };
    const other: SkillSource = { list: () => ({ skills: [good] }), get: () => good, read: () => undefined };
    expect(
      String(await errorOf(skillsHandlers(other).skillsGet({ uri: "skill://z/SKILL.md" }, MODERN))),
    ).toMatch(/returned/);
    expect((await skillsHandlers(other).skillsList({}, MODERN)).skills).toEqual([good]);
  });

  it("checks options and settings", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    expect(() => skillsHandlers(catalogue, { directoryRead: "yes" as never })).toThrow(
      /directoryRead must be a boolean/,
    );
    expect(() => skillsHandlers(catalogue, { cache: { ttlMs: -1 } })).toThrow(/ttlMs/);
    expect(() => skillsHandlers(catalogue, { cache: { cacheScope: "shared" as never } })).toThrow(
      /cacheScope/,
    );
    expect(() => skillsHandlers(catalogue, { other: 1 } as never)).toThrow(/not an option/);
    const noDirectory: SkillSource = {
      list: () => ({ skills: [] }),
      get: () => undefined,
      read: () => undefined,
    };
    expect(() => skillsHandlers(noDirectory, { directoryRead: true })).toThrow(/readDirectory/);
    expect(checkSkillsSettings({})).toEqual({});
    expect(checkSkillsSettings({ directoryRead: false })).toEqual({});
    expect(checkSkillsSettings({ directoryRead: true })).toEqual({ directoryRead: true });
    for (const wrapper of ["config", "specVersion", "stability", "id"]) {
      expect(() => checkSkillsSettings({ [wrapper]: {} })).toThrow(/wrapper/);
    }
    expect(() => checkSkillsSettings({ other: true })).toThrow(/not a setting/);
    expect(() => checkSkillsSettings(null)).toThrow(/object/);
    expect(
      skillsSettingsOf({ extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } } }),
    ).toEqual({ directoryRead: true });
    expect(
      skillsSettingsOf({ extensions: { "io.modelcontextprotocol/skills": { directoryRead: "true" } } }),
    ).toEqual({ directoryRead: false });
    expect(skillsSettingsOf({})).toBeUndefined();
    expect(skillsSettingsOf(undefined)).toBeUndefined();
  });

  it("bundles the extension: id, settings, one handler per method (directory read only when enabled), the resource side", async () => {
    const catalogue = await createSkillCatalogue([PDF]);
    const plain = skillsExtension(catalogue);
    expect(plain.id).toBe("io.modelcontextprotocol/skills");
    expect(plain.settings).toEqual({});
    expect(Object.keys(plain.requests)).toEqual(["skills/list", "skills/get"]);
    const withDirectories = skillsExtension(catalogue, { directoryRead: true });
    expect(withDirectories.settings).toEqual({ directoryRead: true });
    expect(Object.keys(withDirectories.requests)).toEqual([
      "skills/list",
      "skills/get",
      "resources/directory/read",
    ]);
    expect((await withDirectories.requests["skills/list"]({}, MODERN)).skills).toHaveLength(1);
    expect(await plain.readResource({ uri: "skill://pdf-processing/SKILL.md" }, MODERN)).toBeDefined();
    expect(await plain.readResource({ uri: "file:///etc/passwd" }, MODERN)).toBeUndefined();
    expect(await plain.resources(MODERN)).toHaveLength(1);
  });
});
