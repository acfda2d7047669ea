// API reports: one api/<entry>.api.md per package.json export, written by API Extractor from the built declarations
// (dist/**/*.d.ts), so a change of the public surface is a diff of a committed file and shows up in review. The
// entries come from package.json `exports`, so a new entry gets a report (and a failing check until it is
// committed) without editing this file; shared settings live in api-extractor.json.
//
//   node scripts/api.mjs           `npm run api`: regenerates api/*.api.md from dist/ (run `npm run build` first) and
//                                  removes the reports of entries that are no longer exported
//   node scripts/api.mjs --check   `npm run api:check`, part of `npm test`: fails, naming each entry, when the
//                                  surface differs from its committed report, a report is missing, or a report
//                                  belongs to no entry
//
// All entries are analysed in one process with one TypeScript program (API Extractor's CompilerState), so the
// declarations are parsed and bound once rather than once per entry.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from "@microsoft/api-extractor";

const root = fileURLToPath(new URL("..", import.meta.url));
const check = process.argv.includes("--check");
const tag = check ? "api:check" : "api";
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const reportFolder = join(root, "api");
const configPath = join(root, "api-extractor.json");
const SUFFIX = ".api.md";
/** How much of a report's diff `--check` prints per entry; the rest is counted. */
const DIFF_LINES = 120;

/** Each conditional export: the name a user imports it by, its declarations, and its report's base name. */
function entryPoints() {
  const entries = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string") continue; // ./package.json
    const name = subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
    const types = join(root, target.types);
    if (!existsSync(types)) {
      console.error(
        `${tag}: ${name}: ${target.types} is missing; run \`npm run build\` first (npm test does).`,
      );
      process.exit(1);
    }
    entries.push({ name, types, base: name.replaceAll("/", "-") });
  }
  return entries;
}

const entries = entryPoints();
const out = mkdtempSync(join(tmpdir(), "mcpkit-api-"));
let failed = false;

try {
  const shared = ExtractorConfig.loadFile(configPath);
  const configs = entries.map((entry) =>
    ExtractorConfig.prepare({
      configObject: {
        ...shared,
        mainEntryPointFilePath: entry.types,
        // API Extractor writes the report to a temporary folder and compares it with the one in `reportFolder`;
        // pointing both at the same scratch folder leaves the comparison (and its messages) to this script.
        apiReport: {
          ...shared.apiReport,
          reportFileName: entry.base,
          reportFolder: out,
          reportTempFolder: out,
        },
      },
      configObjectFullPath: configPath,
      packageJsonFullPath: join(root, "package.json"),
    }),
  );
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
  });

  const changed = [];
  for (const [index, entry] of entries.entries()) {
    const result = Extractor.invoke(configs[index], {
      localBuild: true,
      compilerState,
      messageCallback(message) {
        // Progress chatter (the preamble, "writing report") is dropped; errors and warnings not written into the
        // report (api-extractor.json decides which are) are printed with the entry's name.
        message.handled = true;
        if (message.logLevel !== ExtractorLogLevel.Error && message.logLevel !== ExtractorLogLevel.Warning)
          return;
        const text = message.sourceFilePath ? message.formatMessageWithLocation(root) : message.text;
        console.error(`${tag}: ${entry.name}: ${message.logLevel}: ${text}`);
      },
    });
    if (result.errorCount > 0) {
      console.error(`${tag}: ${entry.name}: API Extractor reported ${result.errorCount} error(s)`);
      failed = true;
      continue;
    }
    const file = `${entry.base}${SUFFIX}`;
    const built = readFileSync(join(out, file), "utf8")
      .replace(/\r\n/g, "\n")
      // The header names the package; name the entry point instead, so each report says what it covers.
      .replace(/^## API Report File for "[^"]*"/, `## API Report File for "${entry.name}"`)
      // A warning API Extractor cannot attach to a declaration is listed at the end with its source position;
      // the line and column move with every edit above them, so only the file is kept.
      .replace(/^(\/\/ [^\s:]+):\d+:\d+ - \(/gm, "$1 - (");
    writeFileSync(join(out, file), built);
    const committedPath = join(reportFolder, file);
    const committed = existsSync(committedPath)
      ? readFileSync(committedPath, "utf8").replace(/\r\n/g, "\n")
      : null;
    if (committed !== built) changed.push({ entry, file, built, missing: committed === null });
  }

  const expected = new Set(entries.map((entry) => `${entry.base}${SUFFIX}`));
  const orphans = existsSync(reportFolder)
    ? readdirSync(reportFolder).filter((file) => file.endsWith(SUFFIX) && !expected.has(file))
    : [];

  if (failed) {
    // Extraction errors: neither compare nor write.
  } else if (check) {
    for (const { entry, file, missing } of changed) {
      if (missing) {
        console.error(`${tag}: ${entry.name}: api/${file} is missing (a new entry point?)`);
        continue;
      }
      console.error(`${tag}: ${entry.name}: the public surface differs from api/${file}:`);
      printDiff(join("api", file), join(out, file));
    }
    for (const file of orphans)
      console.error(`${tag}: api/${file} belongs to no entry point in package.json exports`);
    if (changed.length > 0 || orphans.length > 0) {
      console.error(
        `${tag}: failed. If the change is intended, run \`npm run build && npm run api\` and commit api/; ` +
          "otherwise the change to the public surface is an accident to undo.",
      );
      failed = true;
    } else {
      console.log(`${tag}: ${entries.length} entry points match their reports in api/`);
    }
  } else {
    mkdirSync(reportFolder, { recursive: true });
    for (const { entry, file, built, missing } of changed) {
      writeFileSync(join(reportFolder, file), built);
      console.log(`${tag}: ${entry.name}: ${missing ? "wrote" : "updated"} api/${file}`);
    }
    for (const file of orphans) {
      rmSync(join(reportFolder, file));
      console.log(`${tag}: removed api/${file} (no such entry point any more)`);
    }
    const unchanged = entries.length - changed.length;
    console.log(
      `${tag}: ${changed.length} report(s) written, ${unchanged} unchanged, ${orphans.length} removed`,
    );
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (failed) process.exit(1);

/** Prints a unified diff of the committed report against the built one (through git, which any checkout has). */
function printDiff(committedFile, builtFile) {
  const diff = spawnSync("git", ["diff", "--no-index", "--no-color", "--", committedFile, builtFile], {
    cwd: root,
    encoding: "utf8",
  });
  if (diff.status !== 1 || typeof diff.stdout !== "string") return; // no git, or no difference git can see
  // git's own header names the scratch copy by its temporary path; the hunks start at the first "@@".
  const hunks = diff.stdout
    .slice(diff.stdout.indexOf("\n@@") + 1)
    .trimEnd()
    .split("\n");
  const lines = [`--- ${committedFile} (committed)`, `+++ ${committedFile} (from dist/)`, ...hunks];
  for (const line of lines.slice(0, DIFF_LINES)) console.error(`  ${line}`);
  if (lines.length > DIFF_LINES) console.error(`  ... ${lines.length - DIFF_LINES} more lines`);
}
