import { checkOptions, nonNegativeInteger, optionError } from "../jsonrpc/config-check.js";
import type { CacheHints } from "../protocol/types/common.js";
import type { ReadResourceResult, Resource } from "../protocol/types/resources.js";
import { MODERN_VERSION } from "../protocol/versions.js";
import { invalidParams } from "../server/index.js";
import { SKILLS_EXTENSION_ID, SKILLS_METHODS } from "./constants.js";
import { skillEntryProblems } from "./entry.js";
import { checkSkillsSettings } from "./settings.js";
import { isPublished, type SkillSource, type SkillsContext } from "./source.js";
import type {
  DirectoryReadResult,
  GetSkillResult,
  ListSkillsResult,
  SkillEntry,
  SkillsSettings,
} from "./types.js";
import { canonicalUri } from "./uri.js";

/** Options of {@link skillsHandlers} and {@link skillsExtension}. Unknown keys are refused. */
export interface SkillsOptions {
  /** Serve `resources/directory/read` and declare `directoryRead: true` (default false). Needs `source.readDirectory`. */
  directoryRead?: boolean;
  /**
   * `ttlMs`/`cacheScope` of `skills/list`, `skills/get` and directory reads in 2026-07-28 (default
   * `{ ttlMs: 0, cacheScope: "public" }`, mcpkit's server default). Use `"private"` for a source that depends on
   * the caller.
   */
  cache?: Partial<CacheHints>;
}

/** A handler of one extension method: the request's params (without `_meta`) and its context. */
export type SkillsRequestHandler<R> = (
  params: { [key: string]: unknown },
  context: SkillsContext,
) => Promise<R>;

/** The server side of the extension as plain functions over a {@link SkillSource}. */
export interface SkillsHandlers {
  /** The settings to declare under `capabilities.extensions["io.modelcontextprotocol/skills"]`. */
  readonly settings: SkillsSettings;
  /** `skills/list`: one page of entries; -32602 for a bad cursor. */
  skillsList: SkillsRequestHandler<ListSkillsResult>;
  /** `skills/get`: the entry of `params.uri`, listed or not; -32602 for a URI no skill is served at. */
  skillsGet: SkillsRequestHandler<GetSkillResult>;
  /** `resources/directory/read`: a directory's direct children; -32602 for what is not a served directory. */
  directoryRead: SkillsRequestHandler<DirectoryReadResult>;
  /** The `resources/read` of a skill file, or `undefined` when `uri` is none (a server's `readResource` delegates). */
  readResource(params: { uri: string }, context: SkillsContext): Promise<ReadResourceResult | undefined>;
  /** The resources to add to `resources/list`: each `SKILL.md`, named and described by its frontmatter. */
  resources(context: SkillsContext): Promise<Resource[]>;
}

function stringParam(params: { [key: string]: unknown }, key: string, required: boolean): string | undefined {
  const value = params[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || (required && value === "")) {
    throw invalidParams(`${key} must be a${required ? " non-empty" : ""} string`);
  }
  return value;
}

/** An entry from a source is sent only if it keeps every rule; otherwise the request fails with -32603. */
function checked(entry: SkillEntry): SkillEntry {
  if (isPublished(entry)) return entry;
  const problems = skillEntryProblems(entry, { mode: "publish" });
  if (problems.length > 0) {
    const uri = typeof entry?.uri === "string" ? entry.uri : "(no uri)";
    throw new Error(`the skill source returned an invalid entry ${uri}: ${problems.join("; ")}`);
  }
  return entry;
}

function checkCache(cache: Partial<CacheHints> | undefined): CacheHints {
  const given = checkOptions(cache, ["ttlMs", "cacheScope"], "options.cache");
  const ttlMs = nonNegativeInteger(given.ttlMs ?? 0, 0, "options.cache.ttlMs");
  const cacheScope = given.cacheScope ?? "public";
  if (cacheScope !== "public" && cacheScope !== "private") {
    throw optionError("options.cache.cacheScope", 'must be "public" or "private"');
  }
  return { ttlMs, cacheScope };
}

/**
 * The extension's handlers over a source (a {@link SkillCatalogue} or your own {@link SkillSource}). Results are
 * shaped for the request's era: in 2026-07-28 they carry `resultType: "complete"`, `ttlMs` and `cacheScope`; in
 * 2025-11-25 none of them. Throws `INVALID_CONFIG` for bad options.
 *
 * @example
 * const skills = skillsHandlers(catalogue, { directoryRead: true });
 * const page = await skills.skillsList({}, { era: "2026-07-28" });
 */
export function skillsHandlers(source: SkillSource, options?: SkillsOptions): SkillsHandlers {
  const opts = checkOptions(options, ["directoryRead", "cache"], "options");
  const settings = checkSkillsSettings(
    opts.directoryRead === undefined ? {} : { directoryRead: opts.directoryRead },
  );
  if (settings.directoryRead && typeof source.readDirectory !== "function") {
    throw optionError("options.directoryRead", "needs a source with readDirectory");
  }
  const cache = checkCache(opts.cache);
  const shaped = <T extends object>(context: SkillsContext, result: T): T =>
    context.era === MODERN_VERSION ? { ...result, resultType: "complete", ...cache } : result;
  return {
    settings,
    async skillsList(params, context) {
      const page = await source.list(stringParam(params, "cursor", false), context);
      const result: ListSkillsResult = { skills: page.skills.map(checked) };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      return shaped(context, result);
    },
    async skillsGet(params, context) {
      const uri = stringParam(params, "uri", true) as string;
      const entry = await source.get(uri, context);
      if (entry === undefined) throw invalidParams(`no skill is served at ${uri}`);
      if (canonicalUri(checked(entry).uri) !== canonicalUri(uri)) {
        throw new Error(`the skill source returned ${entry.uri} for ${uri}`);
      }
      return shaped(context, { skill: entry });
    },
    async directoryRead(params, context) {
      const uri = stringParam(params, "uri", true) as string;
      const cursor = stringParam(params, "cursor", false);
      const page = settings.directoryRead ? await source.readDirectory?.(uri, cursor, context) : undefined;
      if (page === undefined) throw invalidParams(`${uri} is not a directory this server serves`);
      const result: DirectoryReadResult = { resources: page.resources };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      return shaped(context, result);
    },
    async readResource(params, context) {
      return source.read(params.uri, context);
    },
    async resources(context) {
      return (await source.resources?.(context)) ?? [];
    },
  };
}

/**
 * The extension as one object, in the shape mcpkit's extension API takes: its id, the settings to declare, a
 * handler per method (`resources/directory/read` only with `directoryRead: true`), and the resource side a server
 * must also serve (SEP-2640 skills are resources: the server declares `resources`, its `readResource` delegates to
 * `readResource`, its `resources/list` includes `resources()`). Wiring it onto a server is the job of the extension
 * API (`defineExtension` / the builder's `.extension()`).
 *
 * @example
 * const catalogue = await createSkillCatalogue([{ frontmatter: { name: "pdf", description: "PDFs" } }]);
 * const skills = skillsExtension(catalogue, { directoryRead: true });
 * skills.requests["skills/list"]({}, { era: "2026-07-28" });
 */
export function skillsExtension(source: SkillSource, options?: SkillsOptions): SkillsExtension {
  const handlers = skillsHandlers(source, options);
  const requests: SkillsExtension["requests"] = {
    [SKILLS_METHODS.list]: handlers.skillsList,
    [SKILLS_METHODS.get]: handlers.skillsGet,
  };
  if (handlers.settings.directoryRead) requests[SKILLS_METHODS.directoryRead] = handlers.directoryRead;
  return {
    id: SKILLS_EXTENSION_ID,
    settings: handlers.settings,
    requests,
    readResource: handlers.readResource,
    resources: handlers.resources,
  };
}

/** What {@link skillsExtension} returns. */
export interface SkillsExtension {
  /** `io.modelcontextprotocol/skills`. */
  readonly id: typeof SKILLS_EXTENSION_ID;
  /** What to declare under `capabilities.extensions[id]`: `{}` or `{ directoryRead: true }`. */
  readonly settings: SkillsSettings;
  /** A handler per method the extension adds. */
  readonly requests: {
    "skills/list": SkillsRequestHandler<ListSkillsResult>;
    "skills/get": SkillsRequestHandler<GetSkillResult>;
    "resources/directory/read"?: SkillsRequestHandler<DirectoryReadResult>;
  };
  /** The `resources/read` of a skill file, or `undefined` when the URI is none (a server's `readResource` delegates). */
  readonly readResource: SkillsHandlers["readResource"];
  /** The resources to add to `resources/list`: each `SKILL.md`. */
  readonly resources: SkillsHandlers["resources"];
}
