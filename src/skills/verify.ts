import type { RequestOptions } from "../client/index.js";
import { checkOptions } from "../jsonrpc/config-check.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";

import { decodeUtf8, fromBase64, skillDigest, utf8 } from "./bytes.js";
import type { SkillsRequest } from "./client.js";
import { DYNAMIC } from "./constants.js";
import { type SkillLimits, skillEntryProblems, skillLimitProblem } from "./entry.js";
import { SkillVerificationError } from "./errors.js";
import { frontmatterDifferences, parseSkillMd } from "./frontmatter.js";
import { skillLimitOptions } from "./options.js";
import type { SkillEntry, SkillJson, SkillResourceEntry } from "./types.js";
import { canonicalUri, isWithinSkill, skillUriParts, uriProblem } from "./uri.js";
import { FrontmatterError } from "./yaml.js";

/** A skill file as read and checked against the held entry. */
export interface VerifiedSkillFile {
  /** The URI read: the entry's spelling of the file. */
  uri: string;
  /** The skill it belongs to (its `SKILL.md` URI). */
  skill: string;
  mimeType?: string;
  /** Exactly the bytes the digest covers. */
  bytes: Uint8Array;
  /** The text, when the server sent text (or, for `SKILL.md`, the bytes as UTF-8). */
  text?: string;
  /** Size and digest were checked; `false` only for a `"dynamic"` skill, which has none to check. */
  verified: boolean;
  /** For the skill's own `SKILL.md`: its frontmatter (equal to the entry's) and Markdown body. */
  frontmatter?: { [key: string]: SkillJson };
  body?: string;
}

const isObject = (value: unknown): value is { [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The file `ref` names in the skill: a URI, or a reference relative to the skill's root (a fragment is dropped). */
function resolve(entry: SkillEntry, ref: string | undefined): { uri: string; listed?: SkillResourceEntry } {
  const root = skillUriParts(entry.uri)?.root as string;
  let target = entry.uri;
  if (ref !== undefined) {
    const bare = ref.replace(/#.*$/s, "");
    target = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(bare) ? bare : `${root}/${bare.replace(/^(?:\.\/)+/, "")}`;
  }
  const unlisted = () =>
    new SkillVerificationError(
      "unlisted",
      entry.uri,
      target,
      `${target} is not a listed file of ${entry.uri}`,
    );
  if (uriProblem(target) !== undefined || !isWithinSkill(entry.uri, target)) throw unlisted();
  if (entry.resources === DYNAMIC) return { uri: target };
  const key = canonicalUri(target);
  const listed = entry.resources.find((resource) => canonicalUri(resource.uri) === key);
  if (listed === undefined) throw unlisted();
  return { uri: listed.uri, listed };
}

/**
 * Reads one file of a skill and verifies it against the held entry (SEP-2640 §Verify on read): the file must be
 * listed (checked before any request; `ref` is a URI or a path relative to the skill's root, default the
 * `SKILL.md`), its byte size must equal the entry's `size` (checked before hashing) and its SHA-256 the entry's
 * `digest`; a `SKILL.md`'s frontmatter must equal the entry's field by field. Any failure rejects with
 * {@link SkillVerificationError} naming the skill and the file, and the content is not returned. Reading a
 * `SKILL.md` this way is not a load: see {@link loadSkill}.
 *
 * @example
 * const forms = await readSkillFile(client.request.bind(client), entry, "references/FORMS.md");
 */
export async function readSkillFile(
  request: SkillsRequest,
  entry: SkillEntry,
  ref?: string,
  options?: RequestOptions,
): Promise<VerifiedSkillFile> {
  checkSkillEntry(entry);
  const { uri, listed } = resolve(entry, ref);
  const fail = (
    reason: "content" | "size" | "digest" | "frontmatter",
    message: string,
    found: string[] = [],
  ) => new SkillVerificationError(reason, entry.uri, uri, message, found);
  let result: Awaited<ReturnType<SkillsRequest>>;
  try {
    result = await request("resources/read", { uri }, options);
  } catch (error) {
    throw namingSkill(error, entry.uri, uri);
  }
  const contents = Array.isArray(result.contents) ? result.contents : [];
  const item = contents.find(
    (c) => isObject(c) && typeof c.uri === "string" && canonicalUri(c.uri) === canonicalUri(uri),
  );
  let bytes: Uint8Array | undefined;
  if (isObject(item) && typeof item.text === "string") bytes = utf8(item.text);
  else if (isObject(item) && typeof item.blob === "string") bytes = fromBase64(item.blob);
  if (!isObject(item) || bytes === undefined)
    throw fail("content", `resources/read returned no content for ${uri}`);
  if (listed !== undefined) {
    if (bytes.length !== listed.size) {
      throw fail("size", `${uri} is ${bytes.length} bytes; the entry of ${entry.uri} lists ${listed.size}`);
    }
    const digest = await skillDigest(bytes);
    if (digest !== listed.digest)
      throw fail("digest", `${uri} has ${digest}; the entry lists ${listed.digest}`);
  }
  const file: VerifiedSkillFile = { uri, skill: entry.uri, bytes, verified: listed !== undefined };
  if (typeof item.mimeType === "string") file.mimeType = item.mimeType;
  if (typeof item.text === "string") file.text = item.text;
  if (canonicalUri(uri) !== canonicalUri(entry.uri)) return file;
  const text = file.text ?? decodeUtf8(bytes);
  if (text === undefined) throw fail("frontmatter", `${uri} is not UTF-8 text`);
  let parsed: ReturnType<typeof parseSkillMd>;
  try {
    parsed = parseSkillMd(text);
  } catch (error) {
    if (!(error instanceof FrontmatterError)) throw error;
    throw fail("frontmatter", `the frontmatter of ${uri} cannot be read: ${error.message}`);
  }
  const differences = frontmatterDifferences(entry.frontmatter, parsed.frontmatter);
  if (differences.length > 0) {
    throw fail(
      "frontmatter",
      `the frontmatter of ${uri} differs from its entry: ${differences.join("; ")}`,
      differences,
    );
  }
  return { ...file, text, frontmatter: parsed.frontmatter, body: parsed.body };
}

/**
 * A limit error of a file's read (the transport's `MESSAGE_TOO_LARGE`, or a peer's error whose `data.option`
 * names the limit, e.g. a stdio server's `maxOutboundFrameBytes`), rethrown naming the skill and the file (in the
 * message and in `details`/`data`); any other error as it is.
 */
function namingSkill(error: unknown, skill: string, file: string): unknown {
  const prefix = `skill ${skill}, reading ${file}: `;
  if (error instanceof McpkitError && typeof error.details?.option === "string") {
    return new McpkitError(error.code, prefix + error.message, {
      details: { ...error.details, skill, file },
      cause: error,
    });
  }
  if (error instanceof JsonRpcError && isObject(error.data) && typeof error.data.option === "string") {
    return new JsonRpcError(error.code, prefix + error.message, { ...error.data, skill, file });
  }
  return error;
}

/** Options of {@link loadSkill}: the host's limits and policy, and the per-request options. */
export interface LoadSkillOptions extends RequestOptions {
  /** Per-skill limits (default SEP-2640's floors: 512 resources, 16 MiB); a skill over them is declined. */
  limits?: SkillLimits;
  /** Load `"dynamic"` skills, whose files cannot be verified (default false: they are declined). */
  allowDynamic?: boolean;
}

/**
 * A skill loaded through the verifying path: its held entry (a frozen copy), its verified `SKILL.md`, and
 * `readFile`, which while the skill is in use resolves only to files the held entry lists. For a `"dynamic"` skill
 * (`verified` false) reads stay inside the skill's root and within the byte limit. Loading grants nothing: approval,
 * origin display and consent stay with the host.
 */
export class LoadedSkill {
  private bytesRead: number;

  /** @internal Use {@link loadSkill}. */
  constructor(
    private readonly request: SkillsRequest,
    /** The entry the skill was loaded under. */
    readonly entry: SkillEntry,
    /** The verified `SKILL.md`. */
    readonly skillMd: VerifiedSkillFile & { frontmatter: { [key: string]: SkillJson }; body: string },
    private readonly maxTotalBytes: number,
  ) {
    this.bytesRead = skillMd.bytes.length;
  }

  /** False for a `"dynamic"` skill: nothing it reads is checked against a digest. */
  get verified(): boolean {
    return this.entry.resources !== DYNAMIC;
  }

  /** The Markdown body of `SKILL.md` (after the frontmatter). */
  get body(): string {
    return this.skillMd.body;
  }

  /**
   * Reads and verifies one file of the skill (see {@link readSkillFile}); an unlisted file is refused before any
   * request, as a verification failure.
   */
  async readFile(ref: string, options?: RequestOptions): Promise<VerifiedSkillFile> {
    const file = await readSkillFile(this.request, this.entry, ref, options);
    if (!this.verified) {
      this.bytesRead += file.bytes.length;
      if (this.bytesRead > this.maxTotalBytes) {
        throw new SkillVerificationError(
          "limit",
          this.entry.uri,
          file.uri,
          `reading ${file.uri} takes the dynamic skill ${this.entry.uri} over ${this.maxTotalBytes} bytes`,
        );
      }
    }
    return file;
  }
}

/**
 * Loads a skill through the verifying path (SEP-2640 §Host obligations): checks the entry and the host's limits,
 * refuses `"dynamic"` skills unless allowed, then fetches `SKILL.md` (and nothing else: supporting files are read
 * on demand with `readFile`) and verifies its size, digest and frontmatter. Rejects with
 * {@link SkillVerificationError}; the skill must then not be loaded.
 *
 * @example
 * const skill = await loadSkill(client.request.bind(client), entry);
 * const forms = await skill.readFile("references/FORMS.md");
 */
export async function loadSkill(
  request: SkillsRequest,
  entry: SkillEntry,
  options?: LoadSkillOptions,
): Promise<LoadedSkill> {
  const opts = checkOptions(
    options,
    ["limits", "allowDynamic", "signal", "timeoutMs", "onProgress", "meta"],
    "options",
  );
  const limits = skillLimitOptions(opts.limits);
  const { limits: _limits, allowDynamic, ...requestOptions } = opts;
  const uri = checkSkillEntry(entry);
  const held = structuredClone(entry);
  if (held.resources === DYNAMIC && allowDynamic !== true) {
    throw new SkillVerificationError(
      "dynamic",
      uri,
      undefined,
      `${uri} is "dynamic": its files cannot be verified`,
    );
  }
  const over = skillLimitProblem(held, limits);
  if (over !== undefined)
    throw new SkillVerificationError("limit", uri, undefined, `${uri} is declined: ${over}`);
  const skillMd = await readSkillFile(request, held, undefined, requestOptions);
  if (held.resources === DYNAMIC && skillMd.bytes.length > limits.maxTotalBytes) {
    throw new SkillVerificationError("limit", uri, uri, `${uri} is over ${limits.maxTotalBytes} bytes`);
  }
  const loaded = skillMd as LoadedSkill["skillMd"];
  return new LoadedSkill(request, deepFreeze(held), loaded, limits.maxTotalBytes);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Throws `invalid_entry` naming the entry's URI when it breaks a rule of the skill entry shape; returns that URI. */
function checkSkillEntry(entry: unknown): string {
  const problems = skillEntryProblems(entry);
  const uri = isObject(entry) && typeof entry.uri === "string" ? entry.uri : "(no uri)";
  if (problems.length > 0) {
    throw new SkillVerificationError(
      "invalid_entry",
      uri,
      undefined,
      `${uri} is not a valid skill entry`,
      problems,
    );
  }
  return uri;
}
