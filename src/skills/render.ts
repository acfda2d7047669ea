import { frontmatterDifferences, parseSkillMd } from "./frontmatter.js";
import type { SkillFrontmatter, SkillJson } from "./types.js";
import { readsAsItself } from "./yaml.js";

/** Plain (unquoted) text that reads back as the same string: printable ASCII, no indicator, no `: `/` #`, not a number or bool. */
function isSafePlain(text: string): boolean {
  return /^[A-Za-z0-9_(][ -~]*$/.test(text) && !/:(?: |$)| #| $/.test(text) && readsAsItself(text);
}

function renderValue(value: SkillJson): string {
  // JSON is a subset of the YAML the frontmatter reader takes: double-quoted strings and one-line flow collections.
  return typeof value === "string" && isSafePlain(value) ? value : JSON.stringify(value);
}

/**
 * Writes a `SKILL.md` from a frontmatter object and a Markdown body: one `key: value` line per field, plain where
 * that reads back unchanged, JSON (which is YAML) otherwise. Throws `Error` if the result would not read back as
 * the same frontmatter (e.g. a value nested deeper than the reader's bound).
 *
 * @example
 * renderSkillMd({ name: "pdf", description: "Fill PDF forms" }, "# PDF\n");
 * // "---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\n"
 */
export function renderSkillMd(frontmatter: SkillFrontmatter, body: string): string {
  const lines = Object.entries(frontmatter).map(([key, value]) => {
    const plainKey = /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(key) && readsAsItself(key);
    return `${plainKey ? key : JSON.stringify(key)}: ${renderValue(value)}`;
  });
  const text = `---\n${lines.join("\n")}\n---\n${body}`;
  const differences = frontmatterDifferences(frontmatter, parseSkillMd(text).frontmatter);
  if (differences.length > 0)
    throw new Error(`the frontmatter does not read back unchanged: ${differences[0]}`);
  return text;
}
