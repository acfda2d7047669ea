// Lints the package as npm would publish it: packs the built tree once (no lifecycle scripts: `npm test` has
// just built dist/), then runs publint (strict: warnings fail too) and Are the Types Wrong (`esm-only` profile:
// the CommonJS resolution modes are not checked, because the package is ESM-only) on that one tarball. Both tools
// read package.json themselves, so every `exports` entry and every `bin` is covered without a list here.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

if (!existsSync(join(root, "dist"))) {
  console.error("check:package: dist/ is missing; run `npm run build` first (npm test does).");
  process.exit(1);
}

const out = mkdtempSync(join(tmpdir(), "mcpkit-check-"));
let failed = false;
try {
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  const tarball = join(out, packed[0].filename);
  console.log(`check:package: ${packed[0].filename}, ${packed[0].entryCount} files, ${packed[0].size} bytes`);

  const bytes = readFileSync(tarball);
  const { messages } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    strict: true,
  });
  if (messages.length === 0) console.log("publint (strict): no messages");
  for (const message of messages) {
    console.log(`publint ${message.type}: ${formatMessage(message, pkg, { color: false })}`);
    if (message.type !== "suggestion") failed = true;
  }
  if (messages.some((message) => message.type === "suggestion")) {
    // A suggestion is advice, not a defect; it is printed but does not fail the check.
    console.log("publint: suggestions above are printed, not failed on");
  }

  const attw = join(root, "node_modules", ".bin", "attw");
  try {
    execFileSync(attw, [tarball, "--profile", "esm-only", "--format", "table-flipped", "--no-color"], {
      cwd: root,
      stdio: "inherit",
    });
  } catch {
    failed = true;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (failed) {
  console.error("check:package: failed");
  process.exit(1);
}
console.log("check:package: publint and attw passed");
