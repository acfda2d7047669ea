/**
 * A skills folder with good and bad skills, in a real temp folder: the good ones are served, each bad one is
 * reported with its path and the rule it broke (`onRefused`, or the `refused` list of `readSkillDirectory`),
 * names starting with `.` are reported as skipped, and `strict: true` keeps all-or-nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import { loadSkillDirectory, readSkillDefinitions, type SkillDirectoryReport } from "./loader.js";

let base = "";
let root = "";

function write(path: string, content: string | Uint8Array): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-skills-refusals-"));
  root = join(base, "skills");
  mkdirSync(root);
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** Two good skills and one of each kind of bad one, with dot entries beside them. */
function mixedFolder(): void {
  write("pdf/SKILL.md", skillMd("pdf"));
  write("pdf/references/FORMS.md", "# Forms\n");
  write("team/review/SKILL.md", skillMd("review"));
  write("misnamed/SKILL.md", skillMd("other"));
  write("broken/SKILL.md", "---\nname: broken\ndescription: &a x\n---\n");
  write("binary/SKILL.md", Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff]));
  write("Bad_Name/SKILL.md", skillMd("Bad_Name"));
  write("big/SKILL.md", skillMd("big"));
  write("big/huge.bin", new Uint8Array(4_096));
  writeFileSync(join(base, "secret.txt"), "secret");
  write("leaky/SKILL.md", skillMd("leaky"));
  symlinkSync(join(base, "secret.txt"), join(root, "leaky/secret.txt"));
  write(".git/HEAD", "ref: refs/heads/main\n");
  write("pdf/.cache/x", "skipped");
}

describe("a skills folder with bad skills", () => {
  it("serves the good skills and reports each refused one with its path and rule, dot entries as skipped", async () => {
    mixedFolder();
    const reports: SkillDirectoryReport[] = [];
    const catalogue = await loadSkillDirectory(root, {
      maxFileBytes: 1_024,
      onRefused: (report) => reports.push(report),
    });
    expect(catalogue.entries.map((entry) => entry.uri)).toEqual([
      "skill://pdf/SKILL.md",
      "skill://team/review/SKILL.md",
    ]);
    expect(catalogue.read("skill://pdf/references/FORMS.md")?.contents[0]).toMatchObject({
      text: "# Forms\n",
    });
    const byPath = new Map(reports.map((report) => [report.path, report]));
    expect([...byPath.keys()].sort()).toEqual(
      [".git", "Bad_Name", "big", "binary", "broken", "leaky", "misnamed", "pdf/.cache"].sort(),
    );
    expect(byPath.get(".git")).toMatchObject({
      kind: "skipped",
      reason: expect.stringMatching(/starts with "\."/),
    });
    expect(byPath.get("pdf/.cache")).toMatchObject({ kind: "skipped" });
    const refused = (path: string) => {
      const report = byPath.get(path);
      expect(report?.kind, path).toBe("refused");
      expect(report?.error, path).toBeInstanceOf(McpkitError);
      return report?.reason ?? "";
    };
    expect(refused("misnamed")).toMatch(/holds a skill named "other"; the folder must be named after it/);
    expect(refused("broken")).toMatch(/broken\/SKILL\.md has frontmatter mcpkit cannot read/);
    expect(refused("binary")).toMatch(/binary\/SKILL\.md is not UTF-8 text/);
    expect(refused("Bad_Name")).toMatch(/breaks SEP-2640/);
    expect(refused("big")).toMatch(/big\/huge\.bin is larger than maxFileBytes \(1024\)/);
    expect(refused("leaky")).toMatch(/leaky\/secret\.txt is a symlink that leaves the skills directory/);
    // Nothing of a refused skill is served.
    expect(catalogue.read("skill://big/SKILL.md")).toBeUndefined();
  });

  it("strict: true refuses the whole folder with the first error, as before", async () => {
    mixedFolder();
    const onRefused = vi.fn();
    const error = await loadSkillDirectory(root, { strict: true, onRefused }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("INVALID_CONFIG");
    // Dot entries are still only skipped (and said so), never a refusal.
    expect(onRefused.mock.calls.every(([report]) => report.kind === "skipped")).toBe(true);
  });

  it("without onRefused, each refused skill is one console warning naming its path and rule", async () => {
    write("pdf/SKILL.md", skillMd("pdf"));
    write("misnamed/SKILL.md", skillMd("other"));
    write(".git/HEAD", "x");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const catalogue = await loadSkillDirectory(root);
    expect(catalogue.entries).toHaveLength(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(
      /skills directory: refused misnamed: .*folder must be named/,
    );
  });

  it("bounds on the whole read stay all-or-nothing", async () => {
    mixedFolder();
    const error = await loadSkillDirectory(root, { maxFiles: 3, onRefused: () => {} }).catch(
      (e: unknown) => e,
    );
    expect((error as McpkitError).message).toMatch(/maxFiles/);
  });

  it("readSkillDefinitions reports the same way, without the catalogue's rules", async () => {
    mixedFolder();
    const reports: SkillDirectoryReport[] = [];
    const definitions = await readSkillDefinitions(root, {
      maxFileBytes: 1_024,
      onRefused: (report) => reports.push(report),
    });
    expect(definitions.map((d) => d.skillMd?.split("\n")[1])).toEqual([
      "name: Bad_Name",
      "name: pdf",
      "name: review",
    ]);
    expect(reports.filter((r) => r.kind === "refused").map((r) => r.path)).toEqual(
      expect.arrayContaining(["misnamed", "broken", "binary", "big", "leaky"]),
    );
  });

  it("refuses a bad onRefused or strict, naming it", async () => {
    for (const [options, key] of [
      [{ strict: "yes" }, "strict"],
      [{ onRefused: 1 }, "onRefused"],
    ] as const) {
      const error = await loadSkillDirectory(root, options as never).catch((e: unknown) => e);
      expect((error as McpkitError).message, key).toContain(key);
    }
  });
});
