/**
 * A build of mcpkit to drive: the entry points the bench uses, imported from a package directory through that
 * package's own `exports` map. The default is this checkout (its `dist/`, what `import "mcpkit/..."` resolves
 * to here); `bench/compare.mjs` also loads another commit's build from its cache directory.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** This checkout's package directory. */
export const SELF = fileURLToPath(new URL("..", import.meta.url));

const ENTRIES = {
  index: ".",
  server: "./server",
  client: "./client",
  http: "./http",
  node: "./node",
  stdio: "./stdio",
};

/** `{ root, index, server, client, http, node, stdio }`: the modules of the mcpkit package at `root`. */
export async function loadKit(root = SELF) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const load = async (subpath) => {
    const target = pkg.exports?.[subpath];
    const file = typeof target === "string" ? target : (target?.default ?? target?.import);
    if (typeof file !== "string") throw new Error(`${root}: package.json exports no ${subpath}`);
    return import(pathToFileURL(join(root, file)).href);
  };
  const kit = { root };
  for (const [name, subpath] of Object.entries(ENTRIES)) kit[name] = await load(subpath);
  return kit;
}

/**
 * Whether this build's `ServerBuilder` takes the `validate` option (builds before argument validation refuse it
 * as an unknown option, and validate nothing).
 */
export function hasValidateOption(kit) {
  try {
    new kit.server.ServerBuilder({ serverInfo: { name: "probe", version: "1.0.0" }, validate: true }).build();
    return true;
  } catch {
    return false;
  }
}
