import { constants, type Stats } from "node:fs";
import { lstat, open, readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { checkKeys, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import {
  createSkillCatalogue,
  parseSkillMd,
  SKILL_LIMITS,
  SKILL_MD,
  type SkillCatalogue,
  type SkillCatalogueOptions,
  type SkillDefinition,
  type SkillFileContent,
} from "../skills/index.js";

/** Options of {@link loadSkillDirectory}: the catalogue's, plus the loader's bounds. Unknown keys are refused. */
export interface LoadSkillDirectoryOptions extends SkillCatalogueOptions {
  /** Most files read in all (default 10,000). */
  maxFiles?: number;
  /** Most bytes read in all (default 256 MiB). */
  maxBytes?: number;
  /** Most bytes of one file (default: the per-skill byte limit, 16 MiB). */
  maxFileBytes?: number;
  /** Deepest directory nesting under the root (default 32). */
  maxDepth?: number;
}

/** The defaults of the loader's own bounds. */
export const LOADER_DEFAULTS = Object.freeze({
  maxFiles: 10_000,
  maxBytes: 256 * 1024 * 1024,
  maxFileBytes: SKILL_LIMITS.bytesPerSkill,
  maxDepth: 32,
});

const OPTION_KEYS = ["scheme", "pageSize", "limits", "maxFiles", "maxBytes", "maxFileBytes", "maxDepth"];

function invalid(path: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `skills directory: ${path} ${problem}`, { details: { path } });
}

function bound(key: string, value: unknown, fallback: number): number {
  return positiveInteger(
    value,
    fallback,
    key,
    (name, problem) =>
      new McpkitError("INVALID_CONFIG", `options.${name} ${problem}`, { details: { key: name } }),
  );
}

/** A file found under the root: its `/`-separated path and the real path to read. */
interface Found {
  path: string;
  real: string;
  stats: Stats;
}

/** Walks the tree: regular files and directories only; symlinks followed only while they stay inside the root. */
class Walker {
  readonly files: Found[] = [];
  /** The real paths of the directories being walked, root first: a symlink back to one of them is a cycle. */
  private readonly ancestors = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly maxFiles: number,
    private readonly maxDepth: number,
  ) {}

  private inside(real: string): boolean {
    return real === this.root || real.startsWith(this.root + sep);
  }

  async walk(dir: string, path: string, depth: number): Promise<void> {
    if (depth > this.maxDepth) throw invalid(path, `is nested deeper than ${this.maxDepth} directories`);
    if (this.ancestors.has(dir)) throw invalid(path, "is a symlink cycle (a folder inside itself)");
    this.ancestors.add(dir);
    const names = (await readdir(dir)).filter((name) => !name.startsWith(".")).sort();
    for (const name of names) {
      const child = path === "" ? name : `${path}/${name}`;
      const link = await lstat(join(dir, name));
      let real = join(dir, name);
      if (link.isSymbolicLink()) {
        real = await realpath(real).catch(() => {
          throw invalid(child, "is a dangling symlink");
        });
        if (!this.inside(real)) throw invalid(child, "is a symlink that leaves the skills directory");
      }
      const stats = link.isSymbolicLink() ? await stat(real) : link;
      if (stats.isDirectory()) await this.walk(real, child, depth + 1);
      else if (stats.isFile()) {
        if (this.files.length >= this.maxFiles)
          throw invalid(child, `is one file more than maxFiles (${this.maxFiles})`);
        this.files.push({ path: child, real, stats });
      } else throw invalid(child, "is neither a regular file nor a directory");
    }
    this.ancestors.delete(dir);
  }
}

/** Reads a regular file, refusing one that grew past `max` or was swapped for something else since the walk. */
async function readBounded(found: Found, max: number): Promise<Uint8Array> {
  if (found.stats.size > max) throw invalid(found.path, `is larger than maxFileBytes (${max})`);
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(found.real, flags);
  try {
    const now = await handle.stat();
    if (!now.isFile() || now.ino !== found.stats.ino || now.dev !== found.stats.dev) {
      throw invalid(found.path, "changed while the skills directory was read");
    }
    const buffer = new Uint8Array(Math.min(now.size, max) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > max) throw invalid(found.path, `is larger than maxFileBytes (${max})`);
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads a directory of skills into definitions for `createSkillCatalogue`: every folder holding a `SKILL.md` is a
 * skill (its folder name must be its frontmatter `name`; folders above it become the URI prefix), and every file
 * under it is one of its files (a nested skill's files belong to both). UTF-8 files are served as text, others as
 * blobs. Names starting with `.` are skipped; symlinks are followed only while they stay inside `root`; anything
 * that is not a regular file or directory, a file over `maxFileBytes`, more than `maxFiles` files, more than
 * `maxBytes` in all, or nesting deeper than `maxDepth` is refused with `McpkitError` `INVALID_CONFIG`.
 *
 * @example
 * const definitions = await readSkillDefinitions("./skills");
 */
export async function readSkillDefinitions(
  root: string,
  options: Omit<LoadSkillDirectoryOptions, "scheme" | "pageSize" | "limits"> = {},
): Promise<SkillDefinition[]> {
  checkKeys(options, OPTION_KEYS, invalid, "options.");
  const maxFiles = bound("maxFiles", options.maxFiles, LOADER_DEFAULTS.maxFiles);
  const maxBytes = bound("maxBytes", options.maxBytes, LOADER_DEFAULTS.maxBytes);
  const maxFileBytes = bound("maxFileBytes", options.maxFileBytes, LOADER_DEFAULTS.maxFileBytes);
  const maxDepth = bound("maxDepth", options.maxDepth, LOADER_DEFAULTS.maxDepth);
  const real = await realpath(root);
  if (!(await stat(real)).isDirectory()) throw invalid(root, "is not a directory");
  const walker = new Walker(real, maxFiles, maxDepth);
  await walker.walk(real, "", 0);
  const skillDirs = walker.files
    .filter((f) => f.path.split("/").at(-1) === SKILL_MD)
    .map((f) => f.path.slice(0, -SKILL_MD.length - 1));
  if (skillDirs.includes(""))
    throw invalid(SKILL_MD, "sits at the root; point the loader at the folder holding skill folders");
  const contents = new Map<string, SkillFileContent>();
  let total = 0;
  for (const found of walker.files) {
    if (!skillDirs.some((dir) => found.path.startsWith(`${dir}/`))) continue;
    const bytes = await readBounded(found, maxFileBytes);
    total += bytes.length;
    if (total > maxBytes) throw invalid(found.path, `takes the files read over maxBytes (${maxBytes})`);
    let text: string | undefined;
    try {
      text = decoder.decode(bytes);
    } catch {
      text = undefined;
    }
    contents.set(found.path, text ?? bytes);
  }
  return skillDirs.sort().map((dir) => {
    const skillMd = contents.get(`${dir}/${SKILL_MD}`);
    if (typeof skillMd !== "string") throw invalid(`${dir}/${SKILL_MD}`, "is not UTF-8 text");
    const segments = dir.split("/");
    let name: unknown;
    try {
      name = parseSkillMd(skillMd).frontmatter.name;
    } catch (error) {
      throw invalid(`${dir}/${SKILL_MD}`, `has frontmatter mcpkit cannot read: ${(error as Error).message}`);
    }
    if (name !== segments.at(-1))
      throw invalid(dir, `holds a skill named ${JSON.stringify(name)}; the folder must be named after it`);
    const files: { [path: string]: SkillFileContent } = {};
    for (const [path, content] of contents) {
      if (path.startsWith(`${dir}/`) && path !== `${dir}/${SKILL_MD}`)
        files[path.slice(dir.length + 1)] = content;
    }
    const definition: SkillDefinition = { skillMd, files };
    if (segments.length > 1) definition.prefix = segments.slice(0, -1).join("/");
    return definition;
  });
}

/**
 * Loads a directory of skills (`<root>/<name>/SKILL.md` and their files, or deeper `<root>/<prefix>/<name>/...`)
 * into a catalogue: digests and sizes are computed once, here; every rule of SEP-2640 is checked; path traversal
 * and symlinks leaving the root are refused. Throws `McpkitError` `INVALID_CONFIG` naming the file at fault.
 *
 * @example
 * const catalogue = await loadSkillDirectory("./skills");
 * const skills = skillsExtension(catalogue, { directoryRead: true });
 */
export async function loadSkillDirectory(
  root: string,
  options: LoadSkillDirectoryOptions = {},
): Promise<SkillCatalogue> {
  const { scheme, pageSize, limits, ...bounds } = options;
  const definitions = await readSkillDefinitions(root, bounds);
  const catalogueOptions: SkillCatalogueOptions = {};
  if (scheme !== undefined) catalogueOptions.scheme = scheme;
  if (pageSize !== undefined) catalogueOptions.pageSize = pageSize;
  if (limits !== undefined) catalogueOptions.limits = limits;
  return createSkillCatalogue(definitions, catalogueOptions);
}
