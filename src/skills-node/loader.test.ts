import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import { skillDigest, skillsHandlers } from "../skills/index.js";
import { LOADER_DEFAULTS, loadSkillDirectory, readSkillDefinitions } from "./loader.js";

let base = "";
let root = "";

function write(path: string, content: string | Uint8Array): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
}

const skillMd = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: The ${name} skill${extra}\n---\n# ${name}\n`;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-skills-"));
  root = join(base, "skills");
  mkdirSync(root);
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<McpkitError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("INVALID_CONFIG");
    return error as McpkitError;
  }
  throw new Error("expected a refusal");
}

describe("loadSkillDirectory", () => {
  it("loads <name>/SKILL.md folders with their files, digests and sizes computed at load", async () => {
    write("pdf-processing/SKILL.md", skillMd("pdf-processing"));
    write("pdf-processing/references/FORMS.md", "# Forms\r\n");
    write("pdf-processing/assets/blob.bin", Uint8Array.from([0xff, 0xfe, 0x00]));
    write("README.md", "not a skill file");
    write("pdf-processing/.hidden", "skipped");
    const catalogue = await loadSkillDirectory(root);
    const entry = catalogue.get("skill://pdf-processing/SKILL.md");
    expect(entry?.resources).toEqual([
      {
        uri: "skill://pdf-processing/SKILL.md",
        digest: await skillDigest(new TextEncoder().encode(skillMd("pdf-processing"))),
        size: skillMd("pdf-processing").length,
      },
      { uri: "skill://pdf-processing/assets/blob.bin", digest: expect.stringMatching(/^sha256:/), size: 3 },
      {
        uri: "skill://pdf-processing/references/FORMS.md",
        digest: await skillDigest(new TextEncoder().encode("# Forms\r\n")),
        size: 9,
      },
    ]);
    expect(catalogue.read("skill://pdf-processing/references/FORMS.md")?.contents[0]).toMatchObject({
      text: "# Forms\r\n",
    });
    expect(catalogue.read("skill://pdf-processing/assets/blob.bin")?.contents[0]).toMatchObject({
      blob: "//4A",
    });
    const dir = await skillsHandlers(catalogue, { directoryRead: true }).directoryRead(
      { uri: "skill://pdf-processing" },
      { era: "2026-07-28" },
    );
    expect(dir.resources.map((r) => r.name)).toEqual(["SKILL.md", "assets", "references"]);
  });

  it("turns folders above a skill into its prefix, and serves nested skills as their own entries", async () => {
    write("acme/billing/refunds/SKILL.md", skillMd("refunds"));
    write("acme/billing/refunds/forms/SKILL.md", skillMd("forms"));
    write("acme/billing/refunds/forms/a.md", "a");
    const catalogue = await loadSkillDirectory(root, { pageSize: 10 });
    expect(catalogue.entries.map((e) => e.uri)).toEqual([
      "skill://acme/billing/refunds/SKILL.md",
      "skill://acme/billing/refunds/forms/SKILL.md",
    ]);
    const outer = catalogue.get("skill://acme/billing/refunds/SKILL.md");
    expect(Array.isArray(outer?.resources) && outer.resources.map((r) => r.uri)).toContain(
      "skill://acme/billing/refunds/forms/a.md",
    );
  });

  it("follows a symlink that stays inside the root", async () => {
    write("shared/GUIDE.md", "guide");
    write("pdf/SKILL.md", skillMd("pdf"));
    symlinkSync(join(root, "shared/GUIDE.md"), join(root, "pdf/GUIDE.md"));
    symlinkSync(join(root, "shared"), join(root, "pdf/shared"));
    const catalogue = await loadSkillDirectory(root);
    expect(catalogue.read("skill://pdf/GUIDE.md")?.contents[0]).toMatchObject({ text: "guide" });
    expect(catalogue.read("skill://pdf/shared/GUIDE.md")?.contents[0]).toMatchObject({ text: "guide" });
  });

  it("refuses a symlinked file or folder that leaves the root, and a dangling symlink", async () => {
    writeFileSync(join(base, "secret.txt"), "secret");
    write("pdf/SKILL.md", skillMd("pdf"));
    symlinkSync(join(base, "secret.txt"), join(root, "pdf/secret.txt"));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(
      /pdf\/secret\.txt is a symlink that leaves/,
    );
    rmSync(join(root, "pdf/secret.txt"));
    symlinkSync(base, join(root, "pdf/up"));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(
      /pdf\/up is a symlink that leaves/,
    );
    rmSync(join(root, "pdf/up"));
    symlinkSync(join(root, "missing"), join(root, "pdf/dangling"));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(/dangling/);
  });

  it("refuses a symlink cycle inside the root", async () => {
    write("pdf/SKILL.md", skillMd("pdf"));
    symlinkSync(join(root, "pdf"), join(root, "pdf/loop"));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(/symlink cycle/);
  });

  it("refuses what is neither a file nor a folder (a FIFO is never opened)", async () => {
    write("pdf/SKILL.md", skillMd("pdf"));
    execFileSync("mkfifo", [join(root, "pdf/pipe")]);
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(
      /pdf\/pipe is neither/,
    );
  });

  it("refuses SKILL.md at the root, a folder not named after its skill, and unreadable frontmatter", async () => {
    write("SKILL.md", skillMd("x"));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(/sits at the root/);
    rmSync(join(root, "SKILL.md"));
    write("pdf/SKILL.md", skillMd("other"));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(
      /folder must be named/,
    );
    write("pdf/SKILL.md", "---\nname: pdf\ndescription: &a x\n---\n");
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(/cannot read/);
    write("pdf/SKILL.md", Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff]));
    expect((await refusal(loadSkillDirectory(root, { strict: true }))).message).toMatch(/not UTF-8/);
  });

  it("bounds files, bytes, one file's bytes and depth, each crossed", async () => {
    write("pdf/SKILL.md", skillMd("pdf"));
    write("pdf/a.md", "12345");
    write("pdf/b.md", "12345");
    const size = 5 + 5 + new TextEncoder().encode(skillMd("pdf")).length;
    await expect(loadSkillDirectory(root, { maxFiles: 3 })).resolves.toBeDefined();
    expect((await refusal(loadSkillDirectory(root, { strict: true, maxFiles: 2 }))).message).toMatch(
      /maxFiles/,
    );
    await expect(loadSkillDirectory(root, { maxBytes: size })).resolves.toBeDefined();
    expect((await refusal(loadSkillDirectory(root, { strict: true, maxBytes: size - 1 }))).message).toMatch(
      /maxBytes/,
    );
    const skillSize = new TextEncoder().encode(skillMd("pdf")).length;
    await expect(loadSkillDirectory(root, { maxFileBytes: skillSize })).resolves.toBeDefined();
    expect(
      (await refusal(loadSkillDirectory(root, { strict: true, maxFileBytes: skillSize - 1 }))).message,
    ).toMatch(/maxFileBytes/);
    write("pdf/x/y/z.md", "deep");
    await expect(loadSkillDirectory(root, { maxDepth: 3 })).resolves.toBeDefined();
    expect((await refusal(loadSkillDirectory(root, { strict: true, maxDepth: 2 }))).message).toMatch(
      /deeper than 2/,
    );
    expect(LOADER_DEFAULTS).toEqual({
      maxFiles: 10_000,
      maxBytes: 268_435_456,
      maxFileBytes: 16_777_216,
      maxDepth: 32,
    });
  });

  it("applies the per-skill publication limits of the catalogue", async () => {
    write("pdf/SKILL.md", skillMd("pdf"));
    for (let i = 0; i < 3; i++) write(`pdf/f${i}.md`, "x");
    await expect(loadSkillDirectory(root, { limits: { maxResources: 4 } })).resolves.toBeDefined();
    expect(
      (await refusal(loadSkillDirectory(root, { strict: true, limits: { maxResources: 3 } }))).message,
    ).toMatch(/4 resources/);
  });

  it("refuses unknown options and a root that is not a directory", async () => {
    await refusal(loadSkillDirectory(root, { color: 1 } as never));
    await refusal(loadSkillDirectory(root, { strict: true, maxFiles: 0 }));
    write("file.txt", "x");
    await refusal(loadSkillDirectory(join(root, "file.txt")));
    expect(await readSkillDefinitions(root)).toEqual([]);
  });
});
