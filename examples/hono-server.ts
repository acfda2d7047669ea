// The mcpkit Streamable HTTP handler mounted in Hono: one Web-standard handler, both wire eras, behind Hono's
// own authentication middleware. `main()` serves it on 127.0.0.1 through mcpkit/node.
import { Hono } from "hono";
import { createHttpHandler } from "mcpkit/http";
import { serve } from "mcpkit/node";
import { ServerBuilder } from "mcpkit/server";

export const server = new ServerBuilder({ serverInfo: { name: "hono-demo", version: "1.0.0" } })
  .tool(
    { name: "whoami", description: "Says who is calling", inputSchema: { type: "object" } },
    (_args, ctx) => ({
      content: [{ type: "text", text: `hello ${(ctx.identity as { name: string }).name} (${ctx.era})` }],
    }),
  )
  .build();

// Who is calling is decided by the authentication middleware, never by the MCP request: the middleware checks
// the bearer token and records the user for this Request; the handler's `authenticate` hook reads it back.
const TOKENS: { readonly [token: string]: string } = { "demo-token": "ada" };
const users = new WeakMap<Request, { name: string }>();

export const mcp = createHttpHandler(server, { authenticate: (request) => users.get(request) });

export const app = new Hono();
app.use("/mcp", async (c, next) => {
  const token = c.req.header("authorization")?.replace(/^Bearer /, "");
  const name = token === undefined ? undefined : TOKENS[token];
  if (name === undefined) return c.text("Unauthorized", 401, { "www-authenticate": "Bearer" });
  users.set(c.req.raw, { name });
  return next();
});
app.all("/mcp", (c) => mcp(c.req.raw));

/** Serves the Hono app on 127.0.0.1 (a free port); resolves with its URL and a close function. */
export async function main(): Promise<{ url: string; close: () => Promise<void> }> {
  const { url, close } = await serve((request) => app.fetch(request));
  return {
    url,
    close: async () => {
      await close();
      await mcp.close();
    },
  };
}
