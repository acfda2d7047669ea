import type { ReadResourceResult, Resource } from "../protocol/types/resources.js";
import type { RequestContext } from "../server/index.js";
import type { SkillEntry } from "./types.js";

/** What the skills handlers need of a request's context (a server's `RequestContext` has it all). */
export type SkillsContext = Pick<RequestContext, "era"> & Partial<RequestContext>;

/** @inline */
type Answer<T> = Promise<T> | T;

/**
 * Where the skills handlers get skills from. A {@link SkillCatalogue} is one; implement it yourself for a catalogue
 * that depends on the caller (use `context.identity`, and a `"private"` cache scope) or is generated. Entries from
 * a source other than a catalogue are checked against SEP-2640 on their way out; a broken one is never sent.
 */
export interface SkillSource {
  /** One page of entries; an empty or partial listing is allowed (hosts must not read it as "no skills"). */
  list(
    cursor: string | undefined,
    context: SkillsContext,
  ): Answer<{ skills: SkillEntry[]; nextCursor?: string }>;
  /** The entry of the skill whose `SKILL.md` is at `uri`, listed or not; `undefined` when none is served. */
  get(uri: string, context: SkillsContext): Answer<SkillEntry | undefined>;
  /** The `resources/read` result of a skill file; `undefined` when not served. */
  read(uri: string, context: SkillsContext): Answer<ReadResourceResult | undefined>;
  /** A page of a directory's direct children; `undefined` when `uri` is not a served directory. */
  readDirectory?(
    uri: string,
    cursor: string | undefined,
    context: SkillsContext,
  ): Answer<{ resources: Resource[]; nextCursor?: string } | undefined>;
  /** The skill resources to add to `resources/list` (each `SKILL.md`, at least). */
  resources?(context: SkillsContext): Answer<Resource[]>;
  /**
   * Every file URI it serves, when it can enumerate them (a catalogue can): a server then refuses its own
   * resources and templates that collide with them (`INVALID_CONFIG`) instead of shadowing them.
   */
  uris?(): Iterable<string>;
}

const published = new WeakSet<object>();

/** Marks an entry as already checked against the publishing rules (a catalogue's own entries). */
export function markPublished<T extends object>(entry: T): T {
  published.add(entry);
  return entry;
}

/** True for an entry a catalogue checked when it was built. */
export function isPublished(entry: unknown): boolean {
  return typeof entry === "object" && entry !== null && published.has(entry);
}
