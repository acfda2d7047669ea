import { optionError } from "../jsonrpc/config-check.js";

/** Longest glob accepted: a pattern is matched per listed tool, so it stays short. */
const MAX_GLOB_CHARS = 256;

/**
 * Compiles a tool-name glob: `*` matches any run of characters (none included), `?` one character; everything
 * else matches itself. Matching is the greedy two-pointer walk, linear in practice and never exponential
 * (no regular expression, so no backtracking blow-up on many stars).
 *
 * @example
 * globMatcher("read_*")("read_file"); // true
 */
export function globMatcher(glob: string): (name: string) => boolean {
  return (name) => {
    let p = 0;
    let n = 0;
    let star = -1;
    let resume = 0;
    while (n < name.length) {
      const char = glob[p];
      if (char === "*") {
        star = p++;
        resume = n;
      } else if (char !== undefined && (char === "?" || char === name[n])) {
        p++;
        n++;
      } else if (star >= 0) {
        p = star + 1;
        n = ++resume;
      } else {
        return false;
      }
    }
    while (glob[p] === "*") p++;
    return p === glob.length;
  };
}

/** One matcher for a list of globs: true when any matches (false for an empty list). */
export function anyGlob(globs: readonly string[]): (name: string) => boolean {
  const matchers = globs.map(globMatcher);
  return (name) => matchers.some((match) => match(name));
}

/** Throws `INVALID_CONFIG` naming `key[index]` for a glob that is empty or too long. */
export function checkGlobs(globs: readonly string[], key: string): void {
  globs.forEach((glob, index) => {
    if (glob.length === 0 || glob.length > MAX_GLOB_CHARS) {
      throw optionError(`${key}[${index}]`, `must be 1 to ${MAX_GLOB_CHARS} characters`);
    }
  });
}
