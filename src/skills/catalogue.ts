import { utf8Length } from "../jsonrpc/codec.js";
import { checkOptions, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import type { MetaObject } from "../protocol/types/common.js";
import type { ReadResourceResult, Resource } from "../protocol/types/resources.js";
import { skillDigest, toBase64, utf8 } from "./bytes.js";
import { DIRECTORY_MIME_TYPE, SKILL_MD, SKILL_MD_MIME_TYPE } from "./constants.js";
import { type SkillCatalogueLimits, skillEntryProblems, skillLimitProblem } from "./entry.js";
import { parseSkillMd } from "./frontmatter.js";
import { mimeTypeOf } from "./mime.js";
import { skillFileLimitOption, skillLimitOptions } from "./options.js";
import { page } from "./paging.js";
import { renderSkillMd } from "./render.js";
import { markPublished, type SkillSource } from "./source.js";
import type { SkillEntry, SkillFrontmatter } from "./types.js";
import { canonicalUri, encodeSegment, skillUriParts, uriProblem } from "./uri.js";
import { FrontmatterError } from "./yaml.js";

/** A file's content: text (served as `text`) or bytes (served as a base64 `blob`), optionally with its MIME type. */
export type SkillFileContent =
  | string
  | Uint8Array
  | { text: string; mimeType?: string }
  | { bytes: Uint8Array; mimeType?: string };

/**
 * One skill declared in code. Give its `SKILL.md` either as text (`skillMd`, frontmatter included) or as
 * `frontmatter` and `body` (mcpkit writes the file). Its name is the frontmatter `name`; its URI is
 * `<scheme>://<prefix>/<name>/SKILL.md`.
 */
export interface SkillDefinition {
  /** Skill-path segments before the name, `/`-separated (`"acme/billing"`). Default: none. */
  prefix?: string;
  /** The whole `SKILL.md`. */
  skillMd?: string;
  /** The frontmatter, when mcpkit writes `SKILL.md`. */
  frontmatter?: SkillFrontmatter;
  /** The Markdown after the frontmatter, when mcpkit writes `SKILL.md`. Default `""`. */
  body?: string;
  /** The other files, by `/`-separated path under the skill's root (`"references/FORMS.md"`). */
  files?: { [path: string]: SkillFileContent };
  /** The entry's `_meta`. */
  _meta?: MetaObject;
}

/** Options of {@link createSkillCatalogue}. Unknown keys are refused. */
export interface SkillCatalogueOptions {
  /** The URI scheme (default `"skill"`). */
  scheme?: string;
  /** Entries per `skills/list` page and children per `resources/directory/read` page (default 100). */
  pageSize?: number;
  /**
   * Publication limits per skill (default SEP-2640's 512 resources and 16 MiB) and per file (`maxFileBytes`,
   * default what a default HTTP server can send); a skill over them is refused.
   */
  limits?: SkillCatalogueLimits;
}

/** A file as the catalogue serves it. */
interface CatalogueFile {
  uri: string;
  name: string;
  bytes: Uint8Array;
  text: string | undefined;
  mimeType: string;
  digest: string;
}

const DEFINITION_KEYS = ["prefix", "skillMd", "frontmatter", "body", "files", "_meta"];

function splitPath(what: string, path: string): string[] {
  const segments = path.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw optionError(what, `"${path}" must be a relative path without empty, . or .. segments`);
  }
  return segments;
}

function contentOf(
  path: string,
  content: SkillFileContent,
): { bytes: Uint8Array; text?: string; mimeType?: string } {
  if (typeof content === "string") return { bytes: utf8(content), text: content };
  if (content instanceof Uint8Array) return { bytes: content };
  if (
    typeof content === "object" &&
    content !== null &&
    "text" in content &&
    typeof content.text === "string"
  ) {
    return {
      bytes: utf8(content.text),
      text: content.text,
      ...(content.mimeType && { mimeType: content.mimeType }),
    };
  }
  if (
    typeof content === "object" &&
    content !== null &&
    "bytes" in content &&
    content.bytes instanceof Uint8Array
  ) {
    return { bytes: content.bytes, ...(content.mimeType && { mimeType: content.mimeType }) };
  }
  throw optionError(`files["${path}"]`, "must be a string, a Uint8Array, {text} or {bytes}");
}

function skillMdOf(index: number, definition: SkillDefinition): string {
  const at = `skills[${index}]`;
  if (definition.skillMd !== undefined) {
    if (definition.frontmatter !== undefined || definition.body !== undefined) {
      throw optionError(at, "takes skillMd, or frontmatter and body, not both");
    }
    if (typeof definition.skillMd !== "string") throw optionError(`${at}.skillMd`, "must be a string");
    return definition.skillMd;
  }
  if (typeof definition.frontmatter !== "object" || definition.frontmatter === null) {
    throw optionError(at, "needs skillMd, or frontmatter (and a body)");
  }
  try {
    return renderSkillMd(definition.frontmatter, definition.body ?? "");
  } catch (error) {
    throw optionError(`${at}.frontmatter`, (error as Error).message);
  }
}

/**
 * A frozen set of skills a server publishes: entries with digests and sizes computed once, the files served by
 * `resources/read`, and the directory tree `resources/directory/read` walks. Build it with
 * {@link createSkillCatalogue} (or `loadSkillDirectory` from `mcpkit/skills/node`); serve it with
 * `skillsExtension(catalogue)`.
 */
export class SkillCatalogue implements SkillSource {
  /** Every entry, sorted by URI; deeply frozen (they are exactly what clients receive). */
  readonly entries: readonly SkillEntry[];
  private readonly bySkill = new Map<string, SkillEntry>();
  private readonly files = new Map<string, CatalogueFile>();
  private readonly dirs = new Map<string, Resource[]>();
  private readonly pageSize: number;

  /** @internal Use {@link createSkillCatalogue}. */
  constructor(entries: SkillEntry[], files: CatalogueFile[], roots: string[], pageSize: number) {
    this.pageSize = pageSize;
    this.entries = Object.freeze(entries.sort((a, b) => (a.uri < b.uri ? -1 : 1)).map(deepFreeze));
    for (const entry of this.entries) this.bySkill.set(canonicalUri(entry.uri), markPublished(entry));
    for (const file of files) this.files.set(canonicalUri(file.uri), file);
    const dirOf = (uri: string) => uri.slice(0, uri.lastIndexOf("/"));
    const children = new Map<string, Map<string, Resource>>();
    const add = (dir: string, child: Resource) => {
      const known = children.get(dir) ?? new Map<string, Resource>();
      known.set(child.uri, child);
      children.set(dir, known);
    };
    const rootSet = new Set(roots);
    for (const root of roots) children.set(root, children.get(root) ?? new Map());
    for (const file of files) {
      add(dirOf(file.uri), {
        uri: file.uri,
        name: file.name,
        mimeType: file.mimeType,
        size: file.bytes.length,
      });
      // Every directory from the file up to its outermost skill root is a directory resource.
      let root: string | undefined;
      for (let dir = dirOf(file.uri); dir.includes("://") && !dir.endsWith(":/"); dir = dirOf(dir)) {
        if (rootSet.has(dir)) root = dir;
      }
      for (let dir = dirOf(file.uri); root !== undefined && dir.length > root.length; dir = dirOf(dir)) {
        const name = decodeURIComponent(dir.slice(dir.lastIndexOf("/") + 1));
        add(dirOf(dir), { uri: dir, name, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
    for (const [dir, known] of children) {
      this.dirs.set(
        canonicalUri(dir),
        [...known.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1)),
      );
    }
  }

  /** One page of entries. */
  list(cursor: string | undefined): { skills: SkillEntry[]; nextCursor?: string } {
    const { items, nextCursor } = page(this.entries, (entry) => entry.uri, cursor, this.pageSize);
    return nextCursor === undefined ? { skills: items } : { skills: items, nextCursor };
  }

  /** The entry whose `SKILL.md` is at `uri` (any spelling of it), or `undefined`. */
  get(uri: string): SkillEntry | undefined {
    return this.bySkill.get(canonicalUri(uri));
  }

  /** The `resources/read` result of a skill file (`SKILL.md` always as text), or `undefined` when not served. */
  read(uri: string): ReadResourceResult | undefined {
    const file = this.files.get(canonicalUri(uri));
    if (file === undefined) return undefined;
    return { contents: [servedContent(file)] };
  }

  /** One page of a directory's direct children, or `undefined` when `uri` is not a served directory. */
  readDirectory(
    uri: string,
    cursor: string | undefined,
  ): { resources: Resource[]; nextCursor?: string } | undefined {
    const children = this.dirs.get(canonicalUri(uri));
    if (children === undefined) return undefined;
    const { items, nextCursor } = page(children, (child) => child.uri, cursor, this.pageSize);
    return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
  }

  /** The URI of every file it serves, as published (each `SKILL.md` included). */
  uris(): string[] {
    return [...this.files.values()].map((file) => file.uri);
  }

  /** One `resources/list` entry per `SKILL.md`: `text/markdown`, named and described by its frontmatter. */
  resources(): Resource[] {
    return this.entries.map((entry) => ({
      uri: entry.uri,
      name: entry.frontmatter.name,
      description: entry.frontmatter.description,
      mimeType: SKILL_MD_MIME_TYPE,
      size: this.files.get(canonicalUri(entry.uri))?.bytes.length ?? 0,
    }));
  }
}

/** The content item `resources/read` sends for a file. */
function servedContent(file: CatalogueFile): ReadResourceResult["contents"][number] {
  const body = file.text === undefined ? { blob: toBase64(file.bytes) } : { text: file.text };
  return { uri: file.uri, mimeType: file.mimeType, ...body };
}

/** Refuses a file whose `resources/read` content, encoded, is over `maxFileBytes`, naming the skill and file. */
function checkServedSize(file: CatalogueFile, at: string, path: string, skill: string, maxFileBytes: number) {
  // JSON escapes a byte into at most 6: a file this small fits without encoding it.
  if (file.bytes.length * 6 + file.uri.length * 6 + file.mimeType.length * 6 + 64 <= maxFileBytes) return;
  const size = utf8Length(JSON.stringify(servedContent(file)));
  if (size <= maxFileBytes) return;
  const name =
    skill
      .slice(0, -(SKILL_MD.length + 1))
      .split("/")
      .at(-1) ?? skill;
  throw limitError(
    "INVALID_CONFIG",
    `skill ${decodeURIComponent(name)}: ${path} (${file.uri}, ${file.bytes.length} bytes) as resources/read sends it`,
    { option: "options.limits.maxFileBytes", limit: maxFileBytes, size },
    { extra: { key: `${at}.files["${path}"]`, skill, file: file.uri } },
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Builds a {@link SkillCatalogue} from skills declared in code: parses (or writes) each `SKILL.md`, checks every
 * rule of SEP-2640 (names, URIs, frontmatter, limits) and computes each file's digest and size once. Throws
 * `McpkitError` `INVALID_CONFIG` naming the skill and the rule it breaks.
 *
 * @example
 * const catalogue = await createSkillCatalogue([
 *   {
 *     frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" },
 *     body: "# PDF\nSee [forms](references/FORMS.md).\n",
 *     files: { "references/FORMS.md": "# Forms\n" },
 *   },
 * ]);
 */
export function createSkillCatalogue(
  skills: readonly SkillDefinition[],
  options?: SkillCatalogueOptions,
): Promise<SkillCatalogue> {
  return buildSkillCatalogue(skills, options, undefined);
}

/**
 * @internal {@link createSkillCatalogue}, where a skill that breaks a rule is left out and handed to `refuse`
 * (its index and the `INVALID_CONFIG` error a strict build throws) instead of failing the whole build; without
 * `refuse`, the first such error is thrown. For the directory loader.
 */
export async function buildSkillCatalogue(
  skills: readonly SkillDefinition[],
  options: SkillCatalogueOptions | undefined,
  refuse: ((index: number, error: McpkitError) => void) | undefined,
): Promise<SkillCatalogue> {
  const opts = checkOptions(options, ["scheme", "pageSize", "limits"], "options");
  const scheme = opts.scheme ?? "skill";
  if (typeof scheme !== "string" || !/^[a-z][a-z0-9+.-]*$/.test(scheme)) {
    throw optionError("options.scheme", "must be a lowercase URI scheme");
  }
  const pageSize = positiveInteger(opts.pageSize, 100, "options.pageSize");
  const limits = skillLimitOptions(opts.limits, ["maxResources", "maxTotalBytes", "maxFileBytes"]);
  const maxFileBytes = skillFileLimitOption(opts.limits);
  if (!Array.isArray(skills)) throw optionError("skills", "must be an array");
  const entries: SkillEntry[] = [];
  const declared = new Set<string>();
  const files = new Map<string, CatalogueFile>();
  const roots: string[] = [];
  for (const [index, definition] of skills.entries()) {
    let entry: { entry: SkillEntry; files: CatalogueFile[]; root: string };
    try {
      entry = await checkedSkill(index, definition, { scheme, limits, maxFileBytes, files, declared });
    } catch (error) {
      if (refuse === undefined || !(error instanceof McpkitError) || error.code !== "INVALID_CONFIG")
        throw error;
      refuse(index, error);
      continue;
    }
    // Committed only once every check of the skill passed: a refused skill leaves nothing behind.
    for (const file of entry.files) files.set(canonicalUri(file.uri), file);
    declared.add(canonicalUri(entry.entry.uri));
    entries.push(entry.entry);
    roots.push(entry.root);
  }
  return new SkillCatalogue(entries, [...files.values()], roots, pageSize);
}

/** What one skill is checked against: the catalogue's settings and the skills accepted before it. */
interface CatalogueSoFar {
  readonly scheme: string;
  readonly limits: ReturnType<typeof skillLimitOptions>;
  readonly maxFileBytes: number;
  readonly files: ReadonlyMap<string, CatalogueFile>;
  readonly declared: ReadonlySet<string>;
}

/** One skill, every rule checked and every digest computed; throws `INVALID_CONFIG` naming the rule broken. */
async function checkedSkill(
  index: number,
  definition: SkillDefinition,
  { scheme, limits, maxFileBytes, files, declared }: CatalogueSoFar,
): Promise<{ entry: SkillEntry; files: CatalogueFile[]; root: string }> {
  const own = new Map<string, CatalogueFile>();
  const at = `skills[${index}]`;
  checkOptions(definition, DEFINITION_KEYS, at);
  const skillMd = skillMdOf(index, definition);
  let frontmatter: SkillEntry["frontmatter"];
  try {
    frontmatter = parseSkillMd(skillMd).frontmatter as SkillFrontmatter;
  } catch (error) {
    if (!(error instanceof FrontmatterError)) throw error;
    throw optionError(`${at}.skillMd`, `has frontmatter mcpkit cannot read: ${error.message}`);
  }
  const name = typeof frontmatter.name === "string" ? frontmatter.name : "";
  if (definition.prefix !== undefined && typeof definition.prefix !== "string") {
    throw optionError(`${at}.prefix`, "must be a string");
  }
  if (definition.files !== undefined && (typeof definition.files !== "object" || definition.files === null)) {
    throw optionError(`${at}.files`, "must be an object");
  }
  const prefix = definition.prefix === undefined ? [] : splitPath(`${at}.prefix`, definition.prefix);
  const root = `${scheme}://${[...prefix, name].map(encodeSegment).join("/")}`;
  const uri = `${root}/${SKILL_MD}`;
  const inputs: [string, SkillFileContent][] = [
    [SKILL_MD, skillMd],
    ...Object.entries((definition.files ?? {}) as { [path: string]: SkillFileContent }),
  ];
  const resources = [];
  for (const [path, content] of inputs) {
    const segments = splitPath(`${at}.files`, path);
    if (path === SKILL_MD && content !== skillMd) throw optionError(`${at}.files`, "cannot hold SKILL.md");
    const file = contentOf(path, content);
    const fileUri = `${root}/${segments.map(encodeSegment).join("/")}`;
    const problem = uriProblem(fileUri);
    if (problem !== undefined)
      throw optionError(`${at}.files["${path}"]`, `gives the URI ${fileUri}, which ${problem}`);
    const digest = await skillDigest(file.bytes);
    const served: CatalogueFile = {
      uri: fileUri,
      name: segments.at(-1) as string,
      bytes: file.bytes,
      text: path === SKILL_MD ? skillMd : file.text,
      mimeType: path === SKILL_MD ? SKILL_MD_MIME_TYPE : (file.mimeType ?? mimeTypeOf(path)),
      digest,
    };
    checkServedSize(served, at, path, uri, maxFileBytes);
    const known = files.get(canonicalUri(fileUri)) ?? own.get(canonicalUri(fileUri));
    if (known !== undefined && known.digest !== digest) {
      throw optionError(`${at}.files["${path}"]`, `differs from another skill's copy of ${fileUri}`);
    }
    own.set(canonicalUri(fileUri), served);
    resources.push({ uri: fileUri, digest, size: file.bytes.length });
  }
  const entry: SkillEntry = {
    uri,
    frontmatter,
    resources: resources.sort((a, b) => (a.uri < b.uri ? -1 : 1)),
  };
  if (definition._meta !== undefined) entry._meta = structuredClone(definition._meta);
  const problems = skillEntryProblems(entry, { mode: "publish" });
  const over = skillLimitProblem(entry, limits);
  if (over !== undefined) problems.push(`over the per-skill limits: ${over}`);
  if (problems.length > 0) throw optionError(at, `(${uri}) breaks SEP-2640: ${problems.join("; ")}`);
  if (declared.has(canonicalUri(uri))) throw optionError(at, `declares ${uri} twice`);
  return { entry, files: [...own.values()], root: skillUriParts(uri)?.root ?? root };
}
