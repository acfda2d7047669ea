/**
 * requireBearer's refusals, each with its exact challenge: no token (401, no error code), a malformed
 * Authorization header (400 invalid_request), a token the verifier refuses, a token not issued for the resource,
 * an expired one, one naming no principal, one past MAX_TOKEN_LENGTH (401 invalid_token), a token lacking the
 * operation's scopes (403 insufficient_scope with the full set: requiredScopes plus the tool's); the identity
 * handlers see; and both eras over HTTP (2026 per request; a 2025 session bound to the token's principal and
 * client, kept through refresh and step-up, refused to another user).
 */
import { describe, expect, it } from "vitest";
import {
  type BearerRefusal,
  bearerToken,
  InvalidTokenError,
  MAX_TOKEN_LENGTH,
  requireBearer,
  type VerifiedToken,
} from "../../src/auth/index.js";
import type { AuthenticateInfo } from "../../src/http/index.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { ServerBuilder } from "../../src/server/index.js";
import { HttpPeer, useServe } from "../support/http-peer.js";

const RESOURCE = "http://127.0.0.1:4000/mcp";
const METADATA = "http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp";

interface Fake {
  sub?: string;
  client?: string;
  scopes?: string;
  aud?: string;
  exp?: number;
}

/** Test tokens are the base64url JSON of {@link Fake}; `bad` is refused. */
function parse(token: string): VerifiedToken {
  if (token === "bad") throw new InvalidTokenError("signature");
  const fake = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Fake;
  return {
    ...(fake.sub === undefined ? {} : { subject: fake.sub }),
    ...(fake.client === undefined ? {} : { clientId: fake.client }),
    issuer: "https://auth.example.com",
    scopes: fake.scopes ? fake.scopes.split(",") : [],
    audience: [fake.aud ?? RESOURCE],
    ...(fake.exp === undefined ? {} : { expiresAt: fake.exp }),
    claims: { sub: fake.sub },
  };
}

function encode(sub: string, client: string, scopes: string, aud = RESOURCE, exp?: number) {
  const fake: Fake = { scopes, aud, ...(sub === "" ? {} : { sub }), ...(client === "" ? {} : { client }) };
  if (exp !== undefined) fake.exp = exp;
  return Buffer.from(JSON.stringify(fake)).toString("base64url");
}

function hook(refusals: BearerRefusal[] = []) {
  return requireBearer({
    resource: RESOURCE,
    verify: async (token) => parse(token),
    requiredScopes: ["mcp:read"],
    toolScopes: { write_note: ["mcp:write"], admin: ["mcp:write", "mcp:admin"] },
    onRefusal: (refusal) => refusals.push(refusal),
    now: () => 1_000,
  });
}

const call = (name: string): AuthenticateInfo => ({
  message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } },
});
const list: AuthenticateInfo = { message: { jsonrpc: "2.0", id: 1, method: "tools/list" } };

function request(authorization?: string): Request {
  return new Request(RESOURCE, {
    method: "POST",
    headers: authorization === undefined ? {} : { authorization },
  });
}

async function refusalOf(result: unknown) {
  expect(result).toBeInstanceOf(Response);
  const response = result as Response;
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: { error: (await response.text()).split(":")[0] },
    exposed: response.headers.get("access-control-expose-headers"),
  };
}

describe("requireBearer refusals", () => {
  it("no token: 401 with resource_metadata and the operation's scopes, no error code", async () => {
    const refusals: BearerRefusal[] = [];
    const authenticate = hook(refusals);
    const plain = await refusalOf(await authenticate(request(), list));
    expect(plain.status).toBe(401);
    expect(plain.challenge).toBe(`Bearer resource_metadata="${METADATA}", scope="mcp:read"`);
    expect(plain.exposed).toBe("WWW-Authenticate");
    const tool = await refusalOf(await authenticate(request(), call("write_note")));
    expect(tool.challenge).toBe(`Bearer resource_metadata="${METADATA}", scope="mcp:read mcp:write"`);
    // Another scheme is no bearer token either.
    const basic = await refusalOf(await authenticate(request("Basic YWxpY2U6cHc="), list));
    expect(basic.challenge).toBe(`Bearer resource_metadata="${METADATA}", scope="mcp:read"`);
    expect(refusals.map((r) => [r.status, r.reason, r.tool])).toEqual([
      [401, "missing", undefined],
      [401, "missing", "write_note"],
      [401, "missing", undefined],
    ]);
  });

  it.each(["Bearer", "Bearer ", "Bearer a b", "Bearer a,b", "Bearer tok, Bearer other", 'Bearer "quoted"'])(
    "a malformed header %j: 400 invalid_request",
    async (header) => {
      const refusal = await refusalOf(await hook()(request(header), list));
      expect(refusal.status).toBe(400);
      expect(refusal.challenge).toMatch(
        /^Bearer error="invalid_request", error_description="[^"]+", resource_metadata="/,
      );
    },
  );

  it.each([
    ["refused by the verifier", "bad", "The access token's signature is invalid"],
    [
      "for another resource",
      encode("alice", "app", "mcp:read", "https://other.example.com/mcp"),
      "not issued for this resource",
    ],
    [
      "for the resource with a trailing slash",
      encode("alice", "app", "mcp:read", `${RESOURCE}/`),
      "not issued for this resource",
    ],
    ["expired", encode("alice", "app", "mcp:read", RESOURCE, 1_000), "expired"],
    ["naming no principal", encode("", "", "mcp:read"), "lacks required claims"],
    ["too long", "a".repeat(MAX_TOKEN_LENGTH + 1), "malformed"],
  ])("a token %s: 401 invalid_token", async (_name, token, description) => {
    const refusals: BearerRefusal[] = [];
    const refusal = await refusalOf(await hook(refusals)(request(`Bearer ${token}`), list));
    expect(refusal.status).toBe(401);
    expect(refusal.body.error).toBe("invalid_token");
    expect(refusal.challenge).toMatch(
      new RegExp(
        `^Bearer error="invalid_token", error_description="[^"]*${description}[^"]*", resource_metadata="${METADATA}", scope="mcp:read"$`,
      ),
    );
    expect(JSON.stringify(refusals)).not.toContain(token.slice(0, 40));
  });

  it("a token of exactly MAX_TOKEN_LENGTH reaches the verifier", async () => {
    let seen = 0;
    const authenticate = requireBearer({
      resource: RESOURCE,
      verify: async (token) => {
        seen = token.length;
        throw new InvalidTokenError("inactive");
      },
    });
    await authenticate(request(`Bearer ${"a".repeat(MAX_TOKEN_LENGTH)}`), list);
    expect(seen).toBe(MAX_TOKEN_LENGTH);
  });

  it("insufficient scope: 403 naming every scope of the operation", async () => {
    const authenticate = hook();
    const noBase = await refusalOf(
      await authenticate(request(`Bearer ${encode("alice", "app", "mcp:write")}`), list),
    );
    expect(noBase.status).toBe(403);
    expect(noBase.challenge).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks a scope this operation needs", resource_metadata="${METADATA}", scope="mcp:read"`,
    );
    const readOnly = `Bearer ${encode("alice", "app", "mcp:read")}`;
    const tool = await refusalOf(await authenticate(request(readOnly), call("admin")));
    expect(tool.status).toBe(403);
    expect(tool.body.error).toBe("insufficient_scope");
    expect(tool.challenge).toMatch(/, scope="mcp:read mcp:write mcp:admin"$/);
    // The same token passes where the operation needs no more.
    expect(await authenticate(request(readOnly), call("whoami"))).not.toBeInstanceOf(Response);
    expect(await authenticate(request(readOnly), list)).not.toBeInstanceOf(Response);
  });

  it("gives handlers the verified token, never the raw one, and binds sessions to issuer and client", async () => {
    const token = encode("alice", "app", "mcp:read,mcp:write");
    const identity = await hook()(request(`Bearer ${token}`), call("write_note"));
    expect(identity).toMatchObject({
      principal: JSON.stringify(["https://auth.example.com", "alice"]),
      authorizationContext: { issuer: "https://auth.example.com", clientId: "app" },
    });
    expect(bearerToken(identity)).toMatchObject({ subject: "alice", scopes: ["mcp:read", "mcp:write"] });
    expect(JSON.stringify(identity)).not.toContain(token);
    expect(bearerToken({ principal: "x" })).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it("honours a scope hierarchy hook", async () => {
    const authenticate = requireBearer({
      resource: RESOURCE,
      verify: async (token) => parse(token),
      requiredScopes: ["mcp:read"],
      scopeSatisfied: (granted, scope) =>
        granted.has(scope) || (scope === "mcp:read" && granted.has("mcp:admin")),
    });
    expect(
      await authenticate(request(`Bearer ${encode("alice", "app", "mcp:admin")}`), list),
    ).not.toBeInstanceOf(Response);
  });

  it("lets a verifier's outage through as an error (a 500 the handler logs)", async () => {
    const authenticate = requireBearer({
      resource: RESOURCE,
      verify: async () => {
        throw new Error("JWKS down");
      },
    });
    await expect(authenticate(request("Bearer abc"), list)).rejects.toThrow("JWKS down");
  });

  it.each([
    [{ resource: RESOURCE }, /verify/],
    [{ verify: parse, resource: "https://mcp.example.com/mcp#frag" }, /fragment/],
    [{ verify: parse, resource: "http://mcp.example.com/mcp" }, /https/],
    [{ verify: parse, resource: "HTTPS://MCP.example.com/mcp" }, /lowercase/],
    [{ verify: parse, resource: "https://mcp.example.com/mcp?x=1" }, /query/],
    [{ verify: parse, resource: RESOURCE, requiredScopes: ["has space"] }, /invalid scope/],
    [{ verify: parse, resource: RESOURCE, toolScopes: { t: [""] } }, /invalid scope/],
    [{ verify: parse, resource: RESOURCE, audience: "x" }, /not an option/],
    [{ verify: parse, resource: RESOURCE, now: 5 }, /function/],
  ])("rejects options %j", (options, message) => {
    expect(() => requireBearer(options as never)).toThrow(message);
  });
});

const serve = useServe();

async function start() {
  const server = new ServerBuilder({ serverInfo: { name: "bearer", version: "1.0.0" } })
    .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, ctx) => ({
      content: [{ type: "text", text: `${bearerToken(ctx.identity)?.subject}` }],
    }))
    .tool({ name: "write_note", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "written" }],
    }))
    .build();
  const { url } = await serve(createHttpHandler(server, { authenticate: hook() }));
  return url;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("requireBearer over HTTP", () => {
  it("2026-07-28: every request carries its token; a tool needing more scope gets 403", async () => {
    const url = await start();
    const peer = new HttpPeer(url, "2026-07-28");
    const whoami = peer.request("tools/call", { name: "whoami", arguments: {} });
    const anonymous = await peer.send(whoami);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers["www-authenticate"]).toMatch(/^Bearer resource_metadata=/);
    const reader = bearer(encode("alice", "app", "mcp:read"));
    const ok = await peer.send(peer.request("tools/call", { name: "whoami", arguments: {} }), {
      headers: reader,
    });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("alice");
    const write = peer.request("tools/call", { name: "write_note", arguments: {} });
    const refused = await peer.send(write, { headers: reader });
    expect(refused.status).toBe(403);
    expect(refused.headers["www-authenticate"]).toMatch(
      /error="insufficient_scope".*scope="mcp:read mcp:write"$/,
    );
    const writer = bearer(encode("alice", "app", "mcp:read,mcp:write"));
    expect(
      (
        await peer.send(peer.request("tools/call", { name: "write_note", arguments: {} }), {
          headers: writer,
        })
      ).status,
    ).toBe(200);
  });

  it("2025-11-25: the session stays with its user and client through refresh and step-up, and no one else", async () => {
    const url = await start();
    const peer = new HttpPeer(url, "2025-11-25");
    expect((await peer.open()).status).toBe(401);
    const reader = bearer(encode("alice", "app", "mcp:read"));
    expect((await peer.open({ headers: reader })).status).toBe(200);
    const id = peer.sessionId;
    expect(id).toBeDefined();
    const write = () => peer.request("tools/call", { name: "write_note", arguments: {} });
    expect((await peer.send(write(), { headers: reader })).status).toBe(403);
    // Step-up: a new token with more scopes, same user and client: the session goes on.
    const stepped = bearer(encode("alice", "app", "mcp:read,mcp:write"));
    const written = await peer.send(write(), { headers: stepped });
    expect(written.status).toBe(200);
    expect(written.text).toContain("written");
    expect(peer.sessionId).toBe(id);
    // Another user, or the same user through another client, with a valid token: 403 on this session.
    const whoami = () => peer.request("tools/call", { name: "whoami", arguments: {} });
    const bob = await peer.send(whoami(), { headers: bearer(encode("bob", "app", "mcp:read")) });
    expect(bob.status).toBe(403);
    expect(bob.headers["www-authenticate"]).toBeUndefined();
    expect(
      (await peer.send(whoami(), { headers: bearer(encode("alice", "other-app", "mcp:read")) })).status,
    ).toBe(403);
    // No token: 401, so a client knows to authorize.
    expect((await peer.send(whoami())).status).toBe(401);
  });
});
