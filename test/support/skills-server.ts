/**
 * The mcpkit Skills server of the official `SkillsClient` interop tests, in process and on stdio
 * (test/fixtures/stdio-server/skills-server.ts, compiled by test/support/fixture-build.ts): the skills under a
 * folder (`loadSkillDirectory`, `skillsServer` with `directoryRead: true`) on a `ServerBuilder` that also has a
 * resource of its own (`test://own`).
 *
 * @example
 * const server = await skillsFixtureServer(root, 1); // one skill a `skills/list` page
 */

// Through the package name: the sources in the tests (vitest.config.ts aliases), the built package in the stdio
// fixture compiled from this file.
import { type Server, ServerBuilder } from "mcpkit/server";
import { skillsServer } from "mcpkit/skills";
import { loadSkillDirectory } from "mcpkit/skills/node";

/** The skills under `root`, `pageSize` a `skills/list` page (the catalogue's default without it). */
export async function skillsFixtureServer(root: string, pageSize?: number): Promise<Server> {
  const catalogue = await loadSkillDirectory(root, pageSize === undefined ? {} : { pageSize });
  const skills = skillsServer(catalogue, { directoryRead: true });
  return new ServerBuilder({ serverInfo: { name: "mcpkit-skills", version: "0.1.0" } })
    .extension(skills.extension)
    .resource({ uri: "test://own", name: "own" }, (uri) => ({ contents: [{ uri, text: "own" }] }))
    .build();
}
