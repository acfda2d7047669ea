// Serves a Workers entry (the first argument) on workerd through miniflare (run by Node 22+): bundles it with
// esbuild as wrangler would, prints the URL on the first line, and stops when stdin closes.
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const out = await build({
  entryPoints: [process.argv[2]],
  bundle: true,
  format: "esm",
  write: false,
  platform: "neutral",
  target: "es2022",
  logLevel: "error",
});
const mf = new Miniflare({
  modules: true,
  script: out.outputFiles[0].text,
  compatibilityDate: "2025-09-01",
  port: 0,
  host: "127.0.0.1",
});
const url = await mf.ready;
console.log(url.href);
process.stdin.resume();
process.stdin.on("end", () => void mf.dispose().then(() => process.exit(0)));
