import { constants, type Stats } from "node:fs";
import { lstat, open, readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { checkKeys, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import {
  buildSkillCatalogue,
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
  /**
   * `true`: one skill that breaks a rule refuses the whole folder (`INVALID_CONFIG`, the first error). Default
   * `false`: the good skills are served, and each refused one is reported to `onRefused`.
   */
  strict?: boolean;
  /**
   * Told of each skill left out (`kind: "refused"`, its folder, the rule it broke and the error) and of each name
   * starting with `.` that was skipped (`kind: "skipped"`), in both modes. Default: one `console.warn` per refused
   * skill, nothing for skipped names.
   */
  onRefused?: (report: SkillDirectoryReport) => void;
}

/** What the loader left out of a skills folder, and why. */
export interface SkillDirectoryReport {
  /**
   * `refused`: a skill (or a path outside every skill) that breaks a rule, not served; `skipped`: a file or
   * folder whose name starts with `.`, never read.
   */
  readonly kind: "refused" | "skipped";
  /** Its `/`-separated path under the root: a skill's folder, or the path at fault outside every skill. */
  readonly path: string;
  /** The rule it broke, naming the file at fault (`big/huge.bin is larger than maxFileBytes (1024)`). */
  readonly reason: string;
  /** The `INVALID_CONFIG` error `strict: true` throws for it (refused only). */
  readonly error?: McpkitError;
}

/** The defaults of the loader's own bounds. */
export const LOADER_DEFAULTS = Object.freeze({
  maxFiles: 10_000,
  maxBytes: 256 * 1024 * 1024,
  maxFileBytes: SKILL_LIMITS.bytesPerSkill,
  maxDepth: 32,
});

const OPTION_KEYS = [
  "scheme",
  "pageSize",
  "limits",
  "maxFiles",
  "maxBytes",
  "maxFileBytes",
  "maxDepth",
  "strict",
  "onRefused",
];

const PREFIX = "skills directory: ";

function invalid(path: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${PREFIX}${path} ${problem}`, { details: { path } });
}

const SKIPPED = 'starts with "." (hidden names are not read)';

function warnRefused(report: SkillDirectoryReport): void {
  if (report.kind === "refused") console.warn(`[mcpkit] ${PREFIX}refused ${report.path}: ${report.reason}`);
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

/**
 * Walks the tree: regular files and directories only; symlinks followed only while they stay inside the root. A
 * path that breaks a rule goes to `fault` (which throws when strict) and is left out; a name starting with `.` to
 * `skip`. `maxFiles` is a bound on the whole read: crossing it always throws.
 */
class Walker {
  readonly files: Found[] = [];
  /** The real paths of the directories being walked, root first: a symlink back to one of them is a cycle. */
  private readonly ancestors = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly maxFiles: number,
    private readonly maxDepth: number,
    private readonly fault: (error: McpkitError) => void,
    private readonly skip: (path: string) => void,
  ) {}

  private inside(real: string): boolean {
    return real === this.root || real.startsWith(this.root + sep);
  }

  async walk(dir: string, path: string, depth: number): Promise<void> {
    if (depth > this.maxDepth) {
      this.fault(invalid(path, `is nested deeper than ${this.maxDepth} directories`));
      return;
    }
    if (this.ancestors.has(dir)) {
      this.fault(invalid(path, "is a symlink cycle (a folder inside itself)"));
      return;
    }
    this.ancestors.add(dir);
    for (const name of (await readdir(dir)).sort()) {
      const child = path === "" ? name : `${path}/${name}`;
      if (name.startsWith(".")) {
        this.skip(child);
        continue;
      }
      const link = await lstat(join(dir, name));
      let real: string | undefined = join(dir, name);
      if (link.isSymbolicLink()) {
        real = await realpath(real).catch(() => undefined);
        if (real === undefined) {
          this.fault(invalid(child, "is a dangling symlink"));
          continue;
        }
        if (!this.inside(real)) {
          this.fault(invalid(child, "is a symlink that leaves the skills directory"));
          continue;
        }
      }
      const stats = link.isSymbolicLink() ? await stat(real) : link;
      if (stats.isDirectory()) await this.walk(real, child, depth + 1);
      else if (stats.isFile()) {
        if (this.files.length >= this.maxFiles)
          throw invalid(child, `is one file more than maxFiles (${this.maxFiles})`);
        this.files.push({ path: child, real, stats });
      } else this.fault(invalid(child, "is neither a regular file nor a directory"));
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

/** The skills read from a folder: their definitions and, at the same index, their folders. */
interface ReadSkills {
  definitions: SkillDefinition[];
  dirs: string[];
}

/**
 * Reads a directory of skills into definitions for `createSkillCatalogue`: every folder holding a `SKILL.md` is a
 * skill (its folder name must be its frontmatter `name`; folders above it become the URI prefix), and every file
 * under it is one of its files (a nested skill's files belong to both). UTF-8 files are served as text, others as
 * blobs. Names starting with `.` are skipped (and reported to `onRefused` as `skipped`); symlinks are followed
 * only while they stay inside `root`. A skill holding anything that is not a regular file or directory, a file
 * over `maxFileBytes`, nesting deeper than `maxDepth`, a `SKILL.md` that is not UTF-8 or whose frontmatter cannot
 * be read, or a folder not named after its skill is left out and reported to `onRefused` (with `strict: true`,
 * refused with `McpkitError` `INVALID_CONFIG` instead). More than `maxFiles` files or `maxBytes` in all refuses
 * the whole folder in both modes.
 *
 * @example
 * const definitions = await readSkillDefinitions("./skills", { onRefused: (r) => log.warn(r.path, r.reason) });
 */
export async function readSkillDefinitions(
  root: string,
  options: Omit<LoadSkillDirectoryOptions, "scheme" | "pageSize" | "limits"> = {},
): Promise<SkillDefinition[]> {
  return (await readSkills(root, options)).definitions;
}

async function readSkills(
  root: string,
  options: Omit<LoadSkillDirectoryOptions, "scheme" | "pageSize" | "limits">,
): Promise<ReadSkills> {
  checkKeys(options, OPTION_KEYS, invalid, "options.");
  const maxFiles = bound("maxFiles", options.maxFiles, LOADER_DEFAULTS.maxFiles);
  const maxBytes = bound("maxBytes", options.maxBytes, LOADER_DEFAULTS.maxBytes);
  const maxFileBytes = bound("maxFileBytes", options.maxFileBytes, LOADER_DEFAULTS.maxFileBytes);
  const maxDepth = bound("maxDepth", options.maxDepth, LOADER_DEFAULTS.maxDepth);
  const { strict = false, onRefused = warnRefused } = options;
  if (typeof strict !== "boolean") throw invalid("options.strict", "must be a boolean");
  if (typeof onRefused !== "function") throw invalid("options.onRefused", "must be a function");
  const real = await realpath(root);
  if (!(await stat(real)).isDirectory()) throw invalid(root, "is not a directory");
  const faults: McpkitError[] = [];
  const fault = (error: McpkitError) => {
    if (strict) throw error;
    faults.push(error);
  };
  const walker = new Walker(real, maxFiles, maxDepth, fault, (path) =>
    onRefused({ kind: "skipped", path, reason: SKIPPED }),
  );
  await walker.walk(real, "", 0);
  const found = walker.files
    .filter((f) => f.path.split("/").at(-1) === SKILL_MD)
    .map((f) => f.path.slice(0, -SKILL_MD.length - 1));
  if (found.includes(""))
    fault(invalid(SKILL_MD, "sits at the root; point the loader at the folder holding skill folders"));
  const refused = new Set<string>();
  const refuse = (dir: string, error: McpkitError) => {
    if (strict) throw error;
    if (refused.has(dir)) return;
    refused.add(dir);
    onRefused({ kind: "refused", path: dir, reason: error.message.slice(PREFIX.length), error });
  };
  const skillDirs = found.filter((dir) => dir !== "");
  const ownersOf = (path: string) => skillDirs.filter((dir) => path.startsWith(`${dir}/`));
  for (const error of faults) {
    const path = String(error.details?.path);
    const owners = ownersOf(path);
    if (owners.length === 0) refuse(path, error);
    for (const owner of owners) refuse(owner, error);
  }
  const contents = new Map<string, SkillFileContent>();
  let total = 0;
  for (const file of walker.files) {
    const owners = ownersOf(file.path).filter((dir) => !refused.has(dir));
    if (owners.length === 0) continue;
    let bytes: Uint8Array;
    try {
      bytes = await readBounded(file, maxFileBytes);
    } catch (error) {
      if (!(error instanceof McpkitError)) throw error;
      for (const owner of owners) refuse(owner, error);
      continue;
    }
    total += bytes.length;
    if (total > maxBytes) throw invalid(file.path, `takes the files read over maxBytes (${maxBytes})`);
    let text: string | undefined;
    try {
      text = decoder.decode(bytes);
    } catch {
      text = undefined;
    }
    contents.set(file.path, text ?? bytes);
  }
  const read: ReadSkills = { definitions: [], dirs: [] };
  for (const dir of skillDirs.sort()) {
    if (refused.has(dir)) continue;
    try {
      read.definitions.push(definitionOf(dir, contents));
      read.dirs.push(dir);
    } catch (error) {
      if (!(error instanceof McpkitError)) throw error;
      refuse(dir, error);
    }
  }
  return read;
}

/** The definition of the skill in `dir` from the files read; throws `INVALID_CONFIG` naming the rule broken. */
function definitionOf(dir: string, contents: ReadonlyMap<string, SkillFileContent>): SkillDefinition {
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
}

/**
 * Loads a directory of skills (`<root>/<name>/SKILL.md` and their files, or deeper `<root>/<prefix>/<name>/...`)
 * into a catalogue: digests and sizes are computed once, here; every rule of SEP-2640 is checked; path traversal
 * and symlinks leaving the root are refused. A skill that breaks a rule is left out and reported to `onRefused`
 * (default: a `console.warn`) with its folder and the rule; the others are served. With `strict: true` the first
 * such skill refuses the whole folder (`McpkitError` `INVALID_CONFIG` naming the file at fault), as do the bounds
 * on the whole read (`maxFiles`, `maxBytes`) in both modes. See {@link readSkillDefinitions}.
 *
 * @example
 * const catalogue = await loadSkillDirectory("./skills", {
 *   onRefused: ({ kind, path, reason }) => kind === "refused" && log.warn(`skill ${path} left out: ${reason}`),
 * });
 * const skills = skillsExtension(catalogue, { directoryRead: true });
 */
export async function loadSkillDirectory(
  root: string,
  options: LoadSkillDirectoryOptions = {},
): Promise<SkillCatalogue> {
  const { scheme, pageSize, limits, ...rest } = options;
  const { definitions, dirs } = await readSkills(root, rest);
  const catalogueOptions: SkillCatalogueOptions = {};
  if (scheme !== undefined) catalogueOptions.scheme = scheme;
  if (pageSize !== undefined) catalogueOptions.pageSize = pageSize;
  if (limits !== undefined) catalogueOptions.limits = limits;
  const onRefused = rest.onRefused ?? warnRefused;
  return buildSkillCatalogue(
    definitions,
    catalogueOptions,
    rest.strict === true
      ? undefined
      : (index, error) => {
          const key = String(error.details?.key ?? "");
          const reason = error.message.startsWith(`${key} `)
            ? error.message.slice(key.length + 1)
            : error.message;
          onRefused({ kind: "refused", path: dirs[index] ?? `skills[${index}]`, reason, error });
        },
  );
}
