import { McpkitError } from "../jsonrpc/errors.js";

const BRAND = Symbol.for("mcpkit.SkillVerificationError");

/**
 * Why a skill or one of its files was not accepted:
 * - `invalid_entry`: the entry breaks SEP-2640 (hosts must not load it);
 * - `limit`: the skill is over the host's limits (512 resources, 16 MiB by default; for a dynamic skill, bytes read);
 * - `dynamic`: the skill is `"dynamic"` and the caller did not allow unverifiable skills;
 * - `unlisted`: the file is not in the held entry (checked before any request);
 * - `content`: the read returned no content for the file, or a malformed blob;
 * - `size` / `digest`: the bytes read differ from the entry's `size` / `digest`;
 * - `frontmatter`: the `SKILL.md` frontmatter cannot be read, or differs from the entry's.
 */
export type SkillVerificationReason =
  | "invalid_entry"
  | "limit"
  | "dynamic"
  | "unlisted"
  | "content"
  | "size"
  | "digest"
  | "frontmatter";

/**
 * A skill, or a file of it, failed verification against the entry the host holds (SEP-2640 §Host obligations).
 * The content must not be used; recover with `skills/get` and proceed under the new entry, which revokes any
 * approval given for the old one. An `McpkitError` with code `INVALID_RESULT`; `details` repeats the fields.
 *
 * @example
 * try { await skills.load(entry); } catch (e) {
 *   if (e instanceof SkillVerificationError) warnUser(`${e.skill}: ${e.reason} (${e.file ?? "entry"})`);
 * }
 */
export class SkillVerificationError extends McpkitError {
  readonly reason: SkillVerificationReason;
  /** The skill's URI (its `SKILL.md`). */
  readonly skill: string;
  /** The file's URI, when the failure is about one file. */
  readonly file: string | undefined;
  /** For `frontmatter` and `invalid_entry`: one line per difference or broken rule. */
  readonly problems: readonly string[];
  readonly [BRAND] = true;

  constructor(
    reason: SkillVerificationReason,
    skill: string,
    file: string | undefined,
    message: string,
    problems: readonly string[] = [],
  ) {
    super("INVALID_RESULT", message, { details: { reason, skill, file, problems } });
    this.name = "SkillVerificationError";
    this.reason = reason;
    this.skill = skill;
    this.file = file;
    this.problems = problems;
  }

  /** Brand check, so `instanceof` holds for an instance from another copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && BRAND in value;
  }
}
