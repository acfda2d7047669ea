import type { CacheHints, MetaObject } from "../protocol/types/common.js";
import type { Resource } from "../protocol/types/resources.js";

/** A JSON value, as frontmatter holds them. */
export type SkillJson = null | boolean | number | string | SkillJson[] | { [key: string]: SkillJson };

/**
 * A `SKILL.md`'s YAML frontmatter as a JSON object, verbatim: `name` and `description` are required, every other
 * field the author wrote (`license`, `compatibility`, `metadata`, `allowed-tools`, ...) is kept.
 */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: SkillJson;
}

/** One file of a skill in its entry: its URI, `sha256:<hex>` digest and byte size. */
export interface SkillResourceEntry {
  uri: string;
  digest: string;
  size: number;
}

/**
 * A skill entry, as `skills/list` and `skills/get` carry it (SEP-2640 §Skill entry). `resources` lists every file
 * of the skill (its `SKILL.md` included), or is `"dynamic"` for generated content without stable digests.
 */
export interface SkillEntry {
  uri: string;
  frontmatter: SkillFrontmatter;
  resources: SkillResourceEntry[] | "dynamic";
  _meta?: MetaObject;
}

/** The settings under `capabilities.extensions["io.modelcontextprotocol/skills"]`. `{}` = no optional features. */
export interface SkillsSettings {
  /** The server serves `resources/directory/read` (default false). */
  directoryRead?: boolean;
}

/** The params of `skills/list`. */
export interface ListSkillsParams {
  cursor?: string;
}

/** The params of `skills/get`. */
export interface GetSkillParams {
  uri: string;
}

/** The params of `resources/directory/read`. */
export interface DirectoryReadParams {
  uri: string;
  cursor?: string;
}

/** 2026-07-28 members of a result: absent in 2025-11-25. */
export interface ModernResultMembers extends Partial<CacheHints> {
  resultType?: string;
}

/** The result of `skills/list`: one page of entries. */
export interface ListSkillsResult extends ModernResultMembers {
  skills: SkillEntry[];
  nextCursor?: string;
}

/** The result of `skills/get`: one entry, never a cursor. */
export interface GetSkillResult extends ModernResultMembers {
  skill: SkillEntry;
}

/** The result of `resources/directory/read`: the direct children of one directory. */
export interface DirectoryReadResult extends ModernResultMembers {
  resources: Resource[];
  nextCursor?: string;
}
