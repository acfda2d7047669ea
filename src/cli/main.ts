#!/usr/bin/env node
/**
 * The `mcpkit` command: `mcpkit <url | -- program args> [command]`. See docs/cli.md.
 */
import { runGateway } from "./gateway.js";
import { runCli } from "./run.js";

const interrupt = new AbortController();
process.on("SIGINT", () => {
  // A second Ctrl-C does not wait for a clean close.
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort(new Error("interrupted"));
});
// A closed pipe (`mcpkit ... | head`) ends the output, not the process with a stack trace.
process.stdout.on("error", () => {});

const argv = process.argv.slice(2);
// The gateway is a service: SIGTERM stops it as Ctrl-C does, closing every upstream.
if (argv[0] === "gateway") process.on("SIGTERM", () => interrupt.abort(new Error("terminated")));
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  interrupt: interrupt.signal,
};
process.exitCode =
  argv[0] === "gateway"
    ? await runGateway(argv.slice(1), io, {
        onHangup(listener) {
          process.on("SIGHUP", listener);
          return () => process.off("SIGHUP", listener);
        },
      })
    : await runCli(argv, io);
