// The conformance client: an MCP client over Streamable HTTP, built only on mcpkit's public entry points.
//
//   node .conformance-out/client.js <server URL>
//
// The official harness (client mode) runs it once per scenario with the scenario's server URL as the last
// argument, and sets MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and, for some scenarios,
// MCP_CONFORMANCE_CONTEXT (JSON). It picks the era from the protocol version (2026-07-28: stateless, anything
// else: initialize), does what the scenario asks, and exits 0, or 1 with the error on stderr.
import { type MachineGrant, OAuthClient } from "mcpkit/auth";
import { Client, type ClientOptions } from "mcpkit/client";
import { StreamableHttpClientTransport } from "mcpkit/http";
import { SkillsClient } from "mcpkit/skills";

type Json = { [key: string]: unknown };

const url = process.argv.at(-1) ?? "";
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "2025-11-25";
const context = readContext();

function readContext(): Json {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  const value: unknown = JSON.parse(raw);
  return typeof value === "object" && value !== null ? (value as Json) : {};
}

const logger = {
  warn: (message: string, details?: Json) => console.error(`warn: ${message}`, JSON.stringify(details ?? {})),
  debug: (message: string, details?: Json) =>
    console.error(`debug: ${message}`, JSON.stringify(details ?? {})),
};

/** The CIMD URL the harness expects (it never fetches it). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/**
 * The harness has no browser: its authorization endpoint redirects at once, so the "user agent" fetches the URL
 * without following redirects and hands the Location (the redirect with code, state and iss) back.
 */
async function followAuthorization(authorizationUrl: URL): Promise<string | undefined> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  await response.body?.cancel();
  return response.headers.get("location") ?? undefined;
}

/** The machine grant of the extension scenarios that have one, from the context the harness passes. */
function machineGrant(): MachineGrant | undefined {
  const text = (key: string) => (typeof context[key] === "string" ? (context[key] as string) : undefined);
  const clientId = text("client_id") ?? "";
  if (scenario === "auth/client-credentials-basic") {
    return { type: "client_credentials", clientId, clientSecret: text("client_secret") ?? "" };
  }
  if (scenario === "auth/client-credentials-jwt") {
    const algorithm = text("signing_algorithm") === "RS256" ? "RS256" : "ES256";
    return { type: "client_credentials", clientId, privateKey: text("private_key_pem") ?? "", algorithm };
  }
  if (scenario === "auth/wif-jwt-bearer") {
    return { type: "jwt_bearer", clientId, assertion: () => text("valid_jwt") ?? "" };
  }
  if (scenario === "auth/enterprise-managed-authorization") {
    const secret = text("client_secret");
    return {
      type: "enterprise",
      clientId,
      ...(secret === undefined ? {} : { clientSecret: secret }),
      idpTokenEndpoint: text("idp_token_endpoint") ?? "",
      idpClientId: text("idp_client_id") ?? "",
      idToken: () => text("idp_id_token") ?? "",
    };
  }
  return undefined;
}

/** The OAuth client for auth/* scenarios: mcpkit/auth with the harness's redirect stub. */
function oauthClient(): OAuthClient {
  const grant = machineGrant();
  const clientId = context.client_id;
  const preRegistered =
    scenario === "auth/pre-registration" && typeof clientId === "string"
      ? [
          {
            clientId,
            ...(typeof context.client_secret === "string" ? { clientSecret: context.client_secret } : {}),
            ...(typeof context.issuer === "string" ? { issuer: context.issuer } : {}),
          },
        ]
      : [];
  return new OAuthClient({
    redirectUri: "http://localhost:3000/callback",
    onAuthorizationUrl: followAuthorization,
    clientName: "mcpkit-conformance-client",
    clientIdMetadataUrl: CLIENT_METADATA_URL,
    clients: preRegistered,
    dpop: true,
    logger,
    ...(grant === undefined ? {} : { grant }),
  });
}

/**
 * The harness starts every scenario of a requirement set at once, each with its own client process: on a busy
 * 2-core machine a mock server may take more than the default 5 s to answer a notification.
 */
const policy = { connectTimeoutMs: 20_000 };

/** A connected client for the scenario's server, in the era the harness asked for. */
async function connect(extra: Partial<ClientOptions> = {}): Promise<Client> {
  const transport = new StreamableHttpClientTransport(
    scenario.startsWith("auth/")
      ? { url, logger, policy, authProvider: oauthClient() }
      : { url, logger, policy },
  );
  const client = new Client({
    transport,
    clientInfo: { name: "mcpkit-conformance-client", version: "0.1.0" },
    protocolVersion: version === "2026-07-28" ? "2026-07-28" : "2025-11-25",
    logger,
    // Elicitation (2025 server requests, 2026 input-required rounds): accept; the client fills in the
    // schema's defaults for fields left out (SEP-1034).
    capabilities: { elicitation: {} },
    onElicitation: () => ({ action: "accept", content: {} }),
    ...extra,
  });
  await client.connect();
  return client;
}

/** Calls every tool the server lists, with no arguments (a failing call is reported, not fatal). */
async function callEveryTool(client: Client): Promise<void> {
  const tools = await client.listAllTools();
  for (const tool of tools) {
    await client
      .callTool(tool.name, {})
      .catch((error: unknown) => logger.warn(`calling ${tool.name} failed`, { error: String(error) }));
  }
}

/**
 * SEP-2640 verify scenarios: list, load the first skill through the verifying path (its SKILL.md is read and
 * checked: size, digest, frontmatter), and read its supporting files only if that passed. A tampered skill
 * rejects with SkillVerificationError, so FORMS.md is never read (the harness sees a rejection as that absence).
 */
async function loadFirstSkill(client: Client): Promise<void> {
  const skills = new SkillsClient(client);
  const { skills: entries } = await skills.listAll();
  const first = entries[0];
  if (first === undefined) return;
  const loaded = await skills.load(first);
  if (Array.isArray(first.resources)) {
    for (const file of first.resources) if (file.uri !== first.uri) await loaded.readFile(file.uri);
  }
}

/** Every auth scenario: two authorized requests (the second, a tool call, is where step-up happens). */
async function listAndCall(client: Client): Promise<void> {
  await client.listTools();
  await client.callTool("test-tool", {});
}

const scenarios: { [name: string]: (client: Client) => Promise<void> } = {
  // SEP-2640: listing reads no file (no prefetch).
  "sep-2640-client-no-prefetch": async (client) => void (await new SkillsClient(client).listAll()),
  "sep-2640-client-verify-digest": loadFirstSkill,
  "sep-2640-client-verify-size": loadFirstSkill,
  "sep-2640-client-verify-frontmatter": loadFirstSkill,
  initialize: async (client) => {
    await client.listTools();
  },
  tools_call: async (client) => {
    await client.listTools();
    await client.callTool("add_numbers", { a: 5, b: 3 });
  },
  "sse-retry": async (client) => {
    await client.listTools();
    await client.callTool("test_reconnection", {});
  },
  "request-metadata": async (client) => {
    await client.listTools();
    await client.callTool("conformance_probe", {}).catch(() => {});
  },
  "http-standard-headers": async (client) => {
    await callEveryTool(client);
    for (const resource of await client.listAllResources()) await client.readResource(resource.uri);
    for (const prompt of await client.listAllPrompts()) await client.getPrompt(prompt.name);
  },
  "http-custom-headers": async (client) => {
    await client.listAllTools();
    const calls = Array.isArray(context.toolCalls) ? (context.toolCalls as Json[]) : [];
    for (const call of calls) {
      await client.callTool(String(call.name), (call.arguments ?? {}) as Json);
    }
  },
  // Tools whose x-mcp-header annotations are invalid are dropped from the list; every kept one is called.
  "http-invalid-tool-headers": async (client) => {
    for (const tool of await client.listAllTools()) {
      await client.callTool(tool.name, tool.name === "valid_tool" ? { region: "us-west1" } : {});
    }
  },
  "json-schema-ref-no-deref": async (client) => {
    await client.listAllTools();
  },
  "json-schema-2020-12-preservation": async (client) => {
    const tools = await client.listAllTools();
    const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("json_schema_2020_12_tool is not listed");
    await client.callTool("json_schema_echo", { schema: focal.inputSchema });
  },
  "elicitation-sep1034-client-defaults": async (client) => {
    await client.listTools();
    await client.callTool("test_client_elicitation_defaults", {});
  },
  // Two input-required flows (with and without requestState), an unrelated call between rounds, and a result
  // without resultType.
  "sep-2322-client-request-state": async (client) => {
    await client.listTools();
    for (const name of [
      "test_mrtr_echo_state",
      "test_mrtr_no_state",
      "test_mrtr_unrelated",
      "test_mrtr_no_result_type",
    ]) {
      await client.callTool(name, {});
    }
  },
};

async function main(): Promise<void> {
  if (!url.startsWith("http")) throw new Error("usage: client.js <server URL>");
  const client = await connect();
  try {
    const run =
      scenarios[scenario] ??
      (scenario.startsWith("auth/") ? listAndCall : async (c: Client) => void (await c.listTools()));
    await run(client);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`conformance client (${scenario}) failed:`, error);
    process.exit(1);
  },
);
