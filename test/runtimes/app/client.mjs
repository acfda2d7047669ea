// Runs the client checks of both eras inside the runtime that runs this file, against the server at the first
// argument, and prints what it saw as one JSON line.
import { clientChecks } from "../scenarios.mjs";

const url = globalThis.Deno ? Deno.args[0] : process.argv[2];
const out = {};
for (const era of ["2025-11-25", "2026-07-28"]) out[era] = await clientChecks(url, era);
console.log(JSON.stringify(out));
if (globalThis.Deno) Deno.exit(0);
else process.exit(0);
