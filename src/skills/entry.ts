import { DIGEST_PATTERN } from "./bytes.js";
import { DYNAMIC, METADATA_LIMITS, SKILL_LIMITS } from "./constants.js";
import { frontmatterProblems } from "./frontmatter.js";
import type { SkillEntry } from "./types.js";
import { canonicalUri, isRegName, isWithinSkill, skillUriParts, uriProblem } from "./uri.js";

const ENTRY_MEMBERS = new Set(["uri", "frontmatter", "resources", "_meta"]);
const RESOURCE_MEMBERS = new Set(["uri", "digest", "size"]);

const isObject = (value: unknown): value is { [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** How strictly {@link skillEntryProblems} reads an entry. */
export interface EntryCheckOptions {
  /**
   * `"publish"` (what a server sends): exactly the SEP's members, no reserved `metadata` keys, an RFC 3986
   * reg-name authority. `"receive"` (what a client accepts, the default): unknown members and reserved keys are
   * ignored, the authority is not judged.
   */
  mode?: "publish" | "receive";
}

/**
 * Why a JSON value is over mcpkit's metadata bounds (depth 32, 16,384 nodes, 1 MiB of JSON), or `undefined`.
 * Applied to `frontmatter` and `_meta`.
 */
export function metadataBoundsProblem(value: unknown, limits = METADATA_LIMITS): string | undefined {
  let nodes = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (++nodes > limits.nodes) return `more than ${limits.nodes} nodes`;
    if (depth > limits.depth) return `nested deeper than ${limits.depth} levels`;
    if (typeof node === "object" && node !== null) {
      for (const child of Object.values(node)) stack.push([child, depth + 1]);
    }
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  return bytes > limits.bytes ? `larger than ${limits.bytes} bytes of JSON` : undefined;
}

function resourcesProblems(skillUri: string, resources: unknown, publish: boolean): string[] {
  if (resources === DYNAMIC) return [];
  if (!Array.isArray(resources)) return ['resources: must be an array or "dynamic"'];
  if (resources.length === 0) return ["resources: must list the skill's SKILL.md"];
  const problems: string[] = [];
  const seen = new Set<string>();
  const self = canonicalUri(skillUri);
  let hasSelf = false;
  resources.forEach((resource, i) => {
    const at = `resources[${i}]`;
    if (!isObject(resource)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    if (publish) {
      const extra = Object.keys(resource).filter((key) => !RESOURCE_MEMBERS.has(key));
      if (extra.length > 0) problems.push(`${at}: unknown members ${extra.join(", ")}`);
    }
    const { uri, digest, size } = resource;
    if (typeof digest !== "string" || !DIGEST_PATTERN.test(digest)) {
      problems.push(`${at}.digest: must be "sha256:" and 64 lowercase hex digits`);
    }
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
      problems.push(`${at}.size: must be an integer >= 0`);
    }
    if (typeof uri !== "string") {
      problems.push(`${at}.uri: must be a string`);
      return;
    }
    const problem = uriProblem(uri);
    if (problem !== undefined) problems.push(`${at}.uri: ${uri} ${problem}`);
    else if (!isWithinSkill(skillUri, uri))
      problems.push(`${at}.uri: ${uri} is outside the skill's directory`);
    const key = canonicalUri(uri);
    if (seen.has(key)) problems.push(`${at}.uri: ${uri} is listed twice`);
    seen.add(key);
    if (key === self) hasSelf = true;
  });
  if (!hasSelf) problems.push(`resources: must list the skill's own ${skillUri}`);
  return problems;
}

/**
 * Every rule of SEP-2640 §Skill entry that `value` breaks, one message each (empty: a valid entry): the `uri`
 * (a hardened `.../<name>/SKILL.md`), the frontmatter (Agent Skills rules, `name` equal to the URI's last
 * skill-path segment, mcpkit's metadata bounds), and `resources` (`"dynamic"`, or every file once, the `SKILL.md`
 * included, inside the skill, with a well-formed digest and size).
 *
 * @example
 * skillEntryProblems({ uri: "skill://pdf/SKILL.md", frontmatter: { name: "pdf", description: "x" }, resources: [] });
 * // ["resources: must list the skill's SKILL.md"]
 */
export function skillEntryProblems(value: unknown, options: EntryCheckOptions = {}): string[] {
  if (!isObject(value)) return ["entry: must be an object"];
  const publish = options.mode === "publish";
  const problems: string[] = [];
  if (publish) {
    const extra = Object.keys(value).filter((key) => !ENTRY_MEMBERS.has(key));
    if (extra.length > 0) problems.push(`entry: unknown members ${extra.join(", ")}`);
  }
  const { uri, frontmatter, resources, _meta } = value;
  if (typeof uri !== "string" || uri === "") return [...problems, "uri: must be a non-empty string"];
  const uriIssue = uriProblem(uri);
  const parts = skillUriParts(uri);
  if (uriIssue !== undefined) problems.push(`uri: ${uri} ${uriIssue}`);
  else if (parts === undefined) problems.push(`uri: ${uri} must end in /<name>/SKILL.md`);
  else if (publish && !isRegName(parts.authority))
    problems.push(`uri: the authority ${parts.authority} is not a reg-name`);
  problems.push(...frontmatterProblems(frontmatter, { reserved: publish ? "refuse" : "ignore" }));
  if (isObject(frontmatter)) {
    if (parts !== undefined && typeof frontmatter.name === "string" && frontmatter.name !== parts.name) {
      problems.push(`frontmatter.name: ${frontmatter.name} differs from the URI's skill name ${parts.name}`);
    }
    const bounds = metadataBoundsProblem(frontmatter);
    if (bounds !== undefined) problems.push(`frontmatter: ${bounds}`);
  }
  if (_meta !== undefined) {
    const bounds = isObject(_meta) ? metadataBoundsProblem(_meta) : "must be an object";
    if (bounds !== undefined) problems.push(`_meta: ${bounds}`);
  }
  if (uriIssue === undefined && parts !== undefined)
    problems.push(...resourcesProblems(uri, resources, publish));
  else if (resources !== DYNAMIC && !Array.isArray(resources))
    problems.push('resources: must be an array or "dynamic"');
  return problems;
}

/** Limits a skill is judged by: SEP-2640's interoperability floors unless raised. */
export interface SkillLimits {
  /** Most entries in `resources` (default 512). */
  maxResources?: number;
  /** Most bytes summed over `resources[].size` (default 16 MiB). */
  maxTotalBytes?: number;
}

/** The limits of a catalogue: the per-skill ones, and the bound of one served file. */
export interface SkillCatalogueLimits extends SkillLimits {
  /**
   * Most bytes of one file as `resources/read` sends it: its content item (`uri`, `mimeType`, and the text
   * JSON-escaped or the base64 blob) encoded (default 7,934,464: a default HTTP server's `maxResponseBytes` less
   * room for the envelope). Over stdio the frame limit (`maxOutboundFrameBytes`, 1,000,000) is lower still.
   */
  maxFileBytes?: number;
}

/**
 * Why a skill entry is over the per-skill limits, or `undefined`. Both limits are read from the entry alone; a
 * `"dynamic"` skill has no sizes to sum (a client applies the byte limit to what it reads).
 */
export function skillLimitProblem(entry: SkillEntry, limits: SkillLimits = {}): string | undefined {
  if (entry.resources === DYNAMIC) return undefined;
  const maxResources = limits.maxResources ?? SKILL_LIMITS.resourcesPerSkill;
  const maxTotalBytes = limits.maxTotalBytes ?? SKILL_LIMITS.bytesPerSkill;
  if (entry.resources.length > maxResources) {
    return `${entry.resources.length} resources, more than ${maxResources}`;
  }
  const total = entry.resources.reduce((sum, resource) => sum + resource.size, 0);
  return total > maxTotalBytes ? `${total} bytes in all, more than ${maxTotalBytes}` : undefined;
}
