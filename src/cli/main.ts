#!/usr/bin/env node
/**
 * The `mcpkit` command: `mcpkit <url | -- program args> [command]`. See docs/cli.md.
 */
import { runCli } from "./run.js";

const interrupt = new AbortController();
process.on("SIGINT", () => {
  // A second Ctrl-C does not wait for a clean close.
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort(new Error("interrupted"));
});
// A closed pipe (`mcpkit ... | head`) ends the output, not the process with a stack trace.
process.stdout.on("error", () => {});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  interrupt: interrupt.signal,
});
