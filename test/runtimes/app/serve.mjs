// Serves the matrix app on the runtime that runs this file, with that runtime's own server: Bun.serve,
// Deno.serve, or node:http (through mcpkit/node's serve). Prints the base URL on the first line.
import { createApp } from "./app.mjs";

// Deno.serve does not watch a keep-alive connection for the client closing it while a handler runs: a
// disconnect is seen at the next write (docs/runtimes.md). Keepalive comments every 250 ms are such writes, so a
// 2026 cancellation by disconnect is seen well before the handler's 2 s deadline.
const { fetchHandler } = createApp(typeof Deno !== "undefined" ? { keepAliveMs: 250 } : {});

if (typeof Bun !== "undefined") {
  // Bun.serve's idleTimeout (default 10 s) must be above the handler's keepalive (default 15 s), as docs/runtimes.md says.
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 30, fetch: fetchHandler });
  console.log(`http://127.0.0.1:${server.port}/`);
} else if (typeof Deno !== "undefined") {
  Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(`http://127.0.0.1:${port}/`) },
    fetchHandler,
  );
} else {
  const { createServer } = await import("node:http");
  const { toNodeHandler } = await import("../../../dist/node/index.js");
  const server = createServer(toNodeHandler(fetchHandler));
  server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}/`));
}
