import { SKILL_MD } from "./constants.js";

/**
 * Skill URIs (SEP-2640 §URI rules): `<scheme>://<skill-path>/<file-path>`. The first skill-path segment is the
 * authority, the last one is the skill's name, the skill's own URI ends in `/SKILL.md` and its root is that URI
 * without `/SKILL.md` (never a trailing slash). On top of the SEP, mcpkit refuses URIs that could name one file
 * several ways or step out of a skill: query, fragment, userinfo, empty, `.` and `..` segments (also
 * percent-encoded), backslash and NUL (also encoded), an encoded `/`, malformed and double-encoded escapes.
 */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const ESCAPE = /%[0-9A-Fa-f]{2}/g;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** RFC 3986 reg-name: unreserved, sub-delims and escapes (the harness's `authority-reg-name` check). */
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

/** A URI split into scheme, authority and path segments (raw, still percent-encoded). */
export interface SplitUri {
  scheme: string;
  authority: string;
  segments: string[];
}

/** Splits `scheme://authority/seg/...`; `undefined` when it has no `scheme://`. */
export function splitUri(uri: string): SplitUri | undefined {
  const scheme = SCHEME.exec(uri);
  if (scheme === null) return undefined;
  const [authority = "", ...segments] = uri.slice(scheme[0].length).split("/");
  return { scheme: scheme[0].slice(0, -3), authority, segments };
}

/** What mcpkit refuses in one segment (the authority included), or `undefined`. */
function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "has an empty segment";
  if (/[\\\0]/.test(segment)) return "holds a backslash or NUL";
  if (/%(?![0-9A-Fa-f]{2})/.test(segment)) return "holds a malformed percent escape";
  const decoded = segment.replace(ESCAPE, (hex) => String.fromCharCode(Number.parseInt(hex.slice(1), 16)));
  if (decoded === "." || decoded === "..") return "has a . or .. segment";
  if (/[\\/\0]/.test(decoded)) return "encodes a /, backslash or NUL";
  if (/%25[0-9A-Fa-f]{2}/i.test(segment)) return "is double-encoded";
  return undefined;
}

/**
 * Why mcpkit refuses `uri` as a skill or skill-file URI, or `undefined` when it is acceptable.
 *
 * @example
 * uriProblem("skill://acme/../x/SKILL.md"); // "has a . or .. segment"
 */
export function uriProblem(uri: string): string | undefined {
  const split = splitUri(uri);
  if (split === undefined) return 'is not a "scheme://..." URI';
  if (/[?#]/.test(uri)) return "has a query or fragment";
  if (split.authority.includes("@")) return "has userinfo";
  for (const segment of [split.authority, ...split.segments]) {
    const problem = segmentProblem(segment);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** One spelling per resource: lowercase scheme and authority, unreserved characters decoded, other escapes uppercase. */
export function canonicalUri(uri: string): string {
  const split = splitUri(uri);
  if (split === undefined) return uri;
  const segment = (text: string) =>
    text.replace(ESCAPE, (hex) => {
      const ch = String.fromCharCode(Number.parseInt(hex.slice(1), 16));
      return UNRESERVED.test(ch) ? ch : hex.toUpperCase();
    });
  const path = split.segments.map(segment);
  return [`${split.scheme.toLowerCase()}://${segment(split.authority).toLowerCase()}`, ...path].join("/");
}

/** A skill's own URI taken apart: its root directory URI, its name (last skill-path segment) and its authority. */
export interface SkillUriParts {
  root: string;
  name: string;
  authority: string;
}

/**
 * The parts of a skill URI (`.../<name>/SKILL.md`, at least one skill-path segment), or `undefined` when `uri`
 * is not one. Only the structure is checked here; see {@link uriProblem} for the hardening.
 */
export function skillUriParts(uri: string): SkillUriParts | undefined {
  const split = splitUri(uri);
  if (split === undefined || split.segments.at(-1) !== SKILL_MD) return undefined;
  const skillPath = [split.authority, ...split.segments.slice(0, -1)];
  const name = skillPath.at(-1) as string;
  if (name === "") return undefined;
  return { root: uri.slice(0, -(SKILL_MD.length + 1)), name, authority: split.authority };
}

/** True when `authority` is an RFC 3986 reg-name (what SEP-2640 says it SHOULD be). */
export function isRegName(authority: string): boolean {
  return REG_NAME.test(authority);
}

/**
 * True when `fileUri` is the skill's `SKILL.md` or lies under the skill's root, compared in canonical form. This
 * is the SEP's rule (and the harness's plain prefix check) applied to canonical spellings.
 */
export function isWithinSkill(skillUri: string, fileUri: string): boolean {
  const parts = skillUriParts(canonicalUri(skillUri));
  if (parts === undefined) return false;
  const file = canonicalUri(fileUri);
  return file === canonicalUri(skillUri) || file.startsWith(`${parts.root}/`);
}

/** Percent-encodes one path segment of a URI mcpkit builds (a name in a loaded directory, a declared file path). */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}
