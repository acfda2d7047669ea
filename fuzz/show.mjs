/**
 * `--show I`: prints input I of a seed as the runner sends it (its run, kind and bytes; for HTTP its method,
 * path, headers and body), to look at a failure the report names without running anything.
 */
import { httpRun } from "./gen-http.mjs";
import { stdioRun } from "./gen-stdio.mjs";
import { HTTP_RUN_SIZES } from "./run-http.mjs";
import { plan, STDIO_RUN_SIZES } from "./run-stdio.mjs";

export function showInput(transport, seed, index) {
  const sizes = transport === "stdio" ? STDIO_RUN_SIZES : HTTP_RUN_SIZES;
  const run = plan(seed, transport, index + 1, sizes).at(-1);
  const { inputs } =
    transport === "stdio"
      ? stdioRun(run.rng, { size: run.size, firstIndex: run.first })
      : httpRun(run.rng, { size: run.size, firstIndex: run.first });
  const input = inputs.find((candidate) => candidate.index === index);
  const shown = { run: run.run, ...input, bytes: undefined, body: undefined };
  if (input.bytes) shown.bytes = text(input.bytes);
  if (input.body) shown.body = text(input.body);
  return JSON.stringify(shown, null, 2);
}

/** The bytes as text (bytes that are not UTF-8 as U+FFFD), the first 2,000 characters. */
function text(bytes) {
  const shown = bytes.toString("utf8");
  return shown.length > 2_000 ? `${shown.slice(0, 2_000)}... (${bytes.length} bytes)` : shown;
}
