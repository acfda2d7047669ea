/**
 * What the Skills interop tests (test/interop/skills-official-*.test.ts) share: one folder of two skills, written
 * to a temp dir and served by both sides (mcpkit's `loadSkillDirectory`, the official `loadSkills`), the URIs
 * and contents to expect, and reading the requests and answers of one method out of recorded traffic.
 *
 * @example
 * const root = useSkillFolder();
 * const catalogue = await loadSkillDirectory(root(), { pageSize: 1 });
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";

export const PDF_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\nmetadata:\n  version: "1.0"\n---\n\n# PDF\nSee references/FORMS.md.\n';
export const REFUNDS_MD = "---\nname: refunds\ndescription: Handle refunds\n---\n# Refunds\n";
export const FORMS = "# Forms\n";
export const POLICY = "# Policy\n\nWithin 30 days.\n";
/** Not UTF-8: served as a base64 blob. */
export const LOGO = Uint8Array.from([0, 255, 1]);

/** The skill folder's files, by path under its root. */
export const SKILL_FILES: { [path: string]: string | Uint8Array } = {
  "pdf-processing/SKILL.md": PDF_MD,
  "pdf-processing/references/FORMS.md": FORMS,
  "pdf-processing/assets/logo.bin": LOGO,
  "refunds/SKILL.md": REFUNDS_MD,
  "refunds/references/POLICY.md": POLICY,
};

export const PDF = "skill://pdf-processing/SKILL.md";
export const REFUNDS = "skill://refunds/SKILL.md";

/** Writes {@link SKILL_FILES} to a fresh temp folder before the file's tests, removes it after; gives its path. */
export function useSkillFolder(): () => string {
  let root: string | undefined;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "mcpkit-skills-interop-"));
    for (const [path, content] of Object.entries(SKILL_FILES)) {
      const file = join(root, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  });
  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });
  return () => {
    if (root === undefined) throw new Error("useSkillFolder: no test is running");
    return root;
  };
}

/** The requests of `method` in recorded traffic, each with the answer it got. */
export function exchanges(
  messages: readonly JsonRpcMessage[],
  method: string,
): {
  request: JsonRpcMessage & { params?: { [key: string]: unknown } };
  answer: JsonRpcMessage | undefined;
}[] {
  const requests = messages.filter((m) => "method" in m && m.method === method && "id" in m);
  return requests.map((request) => ({
    request,
    answer: messages.find((m) => !("method" in m) && "id" in m && m.id === (request as { id: unknown }).id),
  }));
}

/** The `nextCursor` of an answer, if it has one. */
export function nextCursorOf(answer: JsonRpcMessage | undefined): string | undefined {
  const result = (answer as { result?: { nextCursor?: unknown } } | undefined)?.result;
  return typeof result?.nextCursor === "string" ? result.nextCursor : undefined;
}
