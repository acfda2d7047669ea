import type { RequestOptions } from "../client/index.js";
import { checkOptions, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import type { CacheHints } from "../protocol/types/common.js";
import type { Resource } from "../protocol/types/resources.js";
import { SKILLS_METHODS } from "./constants.js";
import { skillEntryProblems } from "./entry.js";
import { SkillVerificationError } from "./errors.js";
import type { SkillEntry } from "./types.js";
import { canonicalUri } from "./uri.js";

/**
 * Sends one request and resolves with its result: what the skills client functions run on. An mcpkit `Client`'s
 * `request` is one (`client.request.bind(client)`); so is anything with the same shape.
 */
export type SkillsRequest = (
  method: string,
  params: { [key: string]: unknown },
  options?: RequestOptions,
) => Promise<{ [key: string]: unknown }>;

/** A listing entry the client refused (hosts must not load it), and why. `index` counts across every page. */
export interface InvalidSkillEntry {
  index: number;
  uri?: string;
  problems: string[];
}

/** One `skills/list` page as checked: the valid entries, the refused ones, and the result's 2026 members. */
export interface SkillsPage extends Partial<CacheHints> {
  skills: SkillEntry[];
  invalid: InvalidSkillEntry[];
  nextCursor?: string;
}

const isObject = (value: unknown): value is { [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function protocolError(method: string, problem: string, result: unknown): McpkitError {
  return new McpkitError("PROTOCOL", `${method} returned ${problem}`, { details: { method, result } });
}

/** Splits entries into valid ones and refused ones; every copy of a URI listed twice is refused. */
function partition(
  values: unknown[],
  offset: number,
): { skills: SkillEntry[]; invalid: InvalidSkillEntry[] } {
  const keys = values.map((value) =>
    isObject(value) && typeof value.uri === "string" ? canonicalUri(value.uri) : undefined,
  );
  const counts = new Map<string, number>();
  for (const key of keys) if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  const skills: SkillEntry[] = [];
  const invalid: InvalidSkillEntry[] = [];
  values.forEach((value, i) => {
    const problems = skillEntryProblems(value);
    const key = keys[i];
    if (key !== undefined && (counts.get(key) ?? 0) > 1) problems.push("uri: listed more than once");
    if (problems.length === 0) skills.push(value as SkillEntry);
    else {
      const uri = isObject(value) && typeof value.uri === "string" ? { uri: value.uri } : {};
      invalid.push({ index: offset + i, ...uri, problems });
    }
  });
  return { skills, invalid };
}

function cacheMembers(result: { [key: string]: unknown }): Partial<CacheHints> {
  const out: Partial<CacheHints> = {};
  if (typeof result.ttlMs === "number") out.ttlMs = result.ttlMs;
  if (typeof result.cacheScope === "string") out.cacheScope = result.cacheScope;
  return out;
}

/**
 * Fetches one page of skills and checks every entry (SEP-2640 §Skill entry); refused entries come back in
 * `invalid`, never in `skills`. Reads no file. An empty or partial page does not mean "no skills".
 *
 * @example
 * const { skills, invalid, nextCursor } = await listSkills(client.request.bind(client));
 */
export async function listSkills(
  request: SkillsRequest,
  params: { cursor?: string } = {},
  options?: RequestOptions,
): Promise<SkillsPage> {
  const result = await request(
    SKILLS_METHODS.list,
    params.cursor === undefined ? {} : { cursor: params.cursor },
    options,
  );
  if (!Array.isArray(result.skills)) throw protocolError(SKILLS_METHODS.list, "no skills array", result);
  if (result.nextCursor !== undefined && typeof result.nextCursor !== "string") {
    throw protocolError(SKILLS_METHODS.list, "a nextCursor that is not a string", result);
  }
  const page: SkillsPage = { ...partition(result.skills, 0), ...cacheMembers(result) };
  if (typeof result.nextCursor === "string" && result.nextCursor !== "") page.nextCursor = result.nextCursor;
  return page;
}

/** Bounds and deadline of {@link listAllSkills}. Unknown keys are refused. */
export interface ListAllSkillsOptions {
  /** Most pages to fetch (default 100). */
  maxPages?: number;
  /** Most entries to collect, refused ones included (default 100,000). */
  maxItems?: number;
  /** Most bytes of entries (their UTF-8 JSON) to collect (default 64 MiB). */
  maxBytes?: number;
  /** The deadline of the whole walk in milliseconds (default 60,000). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Extra `_meta` keys sent with every page request. */
  meta?: { [key: string]: unknown };
}

/** The defaults of {@link ListAllSkillsOptions}. */
export const LIST_ALL_SKILLS_DEFAULTS = Object.freeze({
  maxPages: 100,
  maxItems: 100_000,
  maxBytes: 64 * 1024 * 1024,
  timeoutMs: 60_000,
});

function limitExceeded(option: string, limit: number, size: number, unit: string): McpkitError {
  return limitError("LIMIT_EXCEEDED", "skills/list", { option: `options.${option}`, limit, size }, { unit });
}

/**
 * Fetches every page of skills under one deadline, bounded by pages, entries and bytes, and stops on a repeated
 * cursor (`LIMIT_EXCEEDED`, `details.reason` `"repeated_cursor"`); a limit crossed is `LIMIT_EXCEEDED` naming it in
 * `details.limit`, the deadline `TIMEOUT`. An entry on two pages is refused (all its copies).
 *
 * @example
 * const { skills, invalid } = await listAllSkills(client.request.bind(client), { maxPages: 10 });
 */
export async function listAllSkills(
  request: SkillsRequest,
  options?: ListAllSkillsOptions,
): Promise<{ skills: SkillEntry[]; invalid: InvalidSkillEntry[] }> {
  const opts = checkOptions(
    options,
    ["maxPages", "maxItems", "maxBytes", "timeoutMs", "signal", "meta"],
    "options",
  );
  const maxPages = positiveInteger(opts.maxPages, LIST_ALL_SKILLS_DEFAULTS.maxPages, "options.maxPages");
  const maxItems = positiveInteger(opts.maxItems, LIST_ALL_SKILLS_DEFAULTS.maxItems, "options.maxItems");
  const maxBytes = positiveInteger(opts.maxBytes, LIST_ALL_SKILLS_DEFAULTS.maxBytes, "options.maxBytes");
  const timeoutMs = opts.timeoutMs ?? LIST_ALL_SKILLS_DEFAULTS.timeoutMs;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0))
    throw optionError("options.timeoutMs", "must be positive");
  const deadline = Date.now() + timeoutMs;
  const raw: unknown[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new McpkitError("TIMEOUT", `skills/list (all pages) timed out after ${timeoutMs} ms`, {
        details: { timeoutMs },
      });
    }
    const perPage: RequestOptions = { timeoutMs: remaining };
    if (opts.signal !== undefined) perPage.signal = opts.signal;
    if (opts.meta !== undefined) perPage.meta = opts.meta;
    const result = await request(SKILLS_METHODS.list, cursor === undefined ? {} : { cursor }, perPage);
    if (!Array.isArray(result.skills)) throw protocolError(SKILLS_METHODS.list, "no skills array", result);
    if (raw.length + result.skills.length > maxItems)
      throw limitExceeded("maxItems", maxItems, raw.length + result.skills.length, "items");
    bytes += new TextEncoder().encode(JSON.stringify(result.skills)).length;
    if (bytes > maxBytes) throw limitExceeded("maxBytes", maxBytes, bytes, "bytes");
    raw.push(...result.skills);
    const next = result.nextCursor;
    if (typeof next !== "string" || next === "") return partition(raw, 0);
    if (seen.has(next)) {
      throw new McpkitError("LIMIT_EXCEEDED", "skills/list: the server repeated a pagination cursor", {
        details: { reason: "repeated_cursor", cursor: next },
      });
    }
    if (pages >= maxPages) throw limitExceeded("maxPages", maxPages, pages + 1, "pages");
    seen.add(next);
    cursor = next;
  }
}

/**
 * Fetches one skill's entry by its `SKILL.md` URI, listed or not (the way to refresh a held entry's digests).
 * Rejects with `SkillVerificationError` `invalid_entry` when the entry breaks SEP-2640 or is another skill's; an
 * unknown URI is the server's `JsonRpcError` -32602.
 *
 * @example
 * const { skill } = await getSkill(client.request.bind(client), "skill://pdf-processing/SKILL.md");
 */
export async function getSkill(
  request: SkillsRequest,
  uri: string,
  options?: RequestOptions,
): Promise<{ skill: SkillEntry } & Partial<CacheHints>> {
  const result = await request(SKILLS_METHODS.get, { uri }, options);
  const problems = skillEntryProblems(result.skill);
  const skill = result.skill as SkillEntry;
  if (problems.length === 0 && canonicalUri(skill.uri) !== canonicalUri(uri)) {
    problems.push(`uri: ${skill.uri} answers a request for ${uri}`);
  }
  if (problems.length > 0) {
    throw new SkillVerificationError(
      "invalid_entry",
      uri,
      undefined,
      `skills/get ${uri}: ${problems.join("; ")}`,
      problems,
    );
  }
  return { skill, ...cacheMembers(result) };
}

/**
 * Fetches one page of a directory's direct children (`resources/directory/read`; only on a server that declared
 * `directoryRead: true`). A directory read never extends a held entry: a file it shows that the entry does not
 * list must not be read as part of the skill.
 *
 * @example
 * const { resources } = await readSkillDirectory(client.request.bind(client), "skill://pdf-processing");
 */
export async function readSkillDirectory(
  request: SkillsRequest,
  uri: string,
  params: { cursor?: string } = {},
  options?: RequestOptions,
): Promise<{ resources: Resource[]; nextCursor?: string } & Partial<CacheHints>> {
  const sent = params.cursor === undefined ? { uri } : { uri, cursor: params.cursor };
  const result = await request(SKILLS_METHODS.directoryRead, sent, options);
  if (
    !Array.isArray(result.resources) ||
    !result.resources.every((r) => isObject(r) && typeof r.uri === "string")
  ) {
    throw protocolError(SKILLS_METHODS.directoryRead, "no resources array of objects with a uri", result);
  }
  const out: { resources: Resource[]; nextCursor?: string } & Partial<CacheHints> = {
    resources: result.resources as Resource[],
    ...cacheMembers(result),
  };
  if (typeof result.nextCursor === "string" && result.nextCursor !== "") out.nextCursor = result.nextCursor;
  return out;
}
