import { checkKeys, optionError } from "../jsonrpc/config-check.js";
import { isObject } from "../jsonrpc/message.js";
import { anyGlob, checkGlobs } from "./glob.js";

/**
 * One rule of `gateway.access`: who it is for (a principal, or any of some OAuth scopes; neither: everyone) and
 * what they may use: upstreams by name and tools by their namespaced name, as globs (default `*`).
 */
export interface AccessRule {
  readonly principals: readonly string[];
  readonly scopes: readonly string[];
  readonly upstreams: readonly string[];
  readonly tools: readonly string[];
}

/** What one request's principal may use. */
export interface Grant {
  upstream(name: string): boolean;
  /** A tool by its namespaced name (`fs__read_file`), its upstream granted too. */
  tool(upstream: string, name: string): boolean;
}

/** Everything: a gateway without `access` rules. */
export const ALL: Grant = Object.freeze({ upstream: () => true, tool: () => true });
const NOTHING: Grant = Object.freeze({ upstream: () => false, tool: () => false });

/** Checks `gateway.access`: an array of rules, each naming its faults by index. */
export function parseAccess(input: unknown): readonly AccessRule[] | undefined {
  if (input === undefined) return undefined;
  if (!Array.isArray(input)) throw optionError("gateway.access", "must be an array of rules");
  return Object.freeze(
    input.map((rule, index) => {
      const key = `gateway.access[${index}]`;
      if (!isObject(rule)) throw optionError(key, "must be an object");
      checkKeys(rule, ["principals", "scopes", "upstreams", "tools"], "", `${key}.`);
      const list = (name: string, fallback: string[]) => {
        const value = rule[name];
        if (value === undefined) return fallback;
        if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item === "")) {
          throw optionError(`${key}.${name}`, "must be an array of non-empty strings");
        }
        return value as string[];
      };
      const upstreams = list("upstreams", ["*"]);
      const tools = list("tools", ["*"]);
      checkGlobs(upstreams, `${key}.upstreams`);
      checkGlobs(tools, `${key}.tools`);
      return Object.freeze({
        principals: list("principals", []),
        scopes: list("scopes", []),
        upstreams,
        tools,
      });
    }),
  );
}

interface CompiledRule {
  readonly rule: AccessRule;
  readonly upstream: (name: string) => boolean;
  readonly tool: (name: string) => boolean;
}

/**
 * Per-principal access: the rules that match a request's identity (its `principal`, or the `subject` and
 * `scopes` of a verified bearer token, as mcpkit/auth's `requireBearer` sets them) grant the union of what they
 * list. With rules, an identity no rule matches gets nothing; without rules, everyone gets everything.
 */
export class Access {
  private readonly rules: readonly CompiledRule[] | undefined;

  constructor(rules: readonly AccessRule[] | undefined) {
    this.rules = rules?.map((rule) => ({
      rule,
      upstream: anyGlob(rule.upstreams),
      tool: anyGlob(rule.tools),
    }));
  }

  /** What `identity` may use. */
  grant(identity: unknown): Grant {
    if (this.rules === undefined) return ALL;
    const { principals, scopes } = whoIs(identity);
    const matching = this.rules.filter(
      ({ rule }) =>
        (rule.principals.length === 0 && rule.scopes.length === 0) ||
        rule.principals.some((p) => principals.includes(p)) ||
        rule.scopes.some((s) => scopes.includes(s)),
    );
    if (matching.length === 0) return NOTHING;
    return {
      upstream: (name) => matching.some((m) => m.upstream(name)),
      tool: (upstream, name) => matching.some((m) => m.upstream(upstream) && m.tool(name)),
    };
  }
}

function whoIs(identity: unknown): { principals: string[]; scopes: readonly string[] } {
  if (typeof identity === "string") return { principals: [identity], scopes: [] };
  if (!isObject(identity)) return { principals: [], scopes: [] };
  const principals: string[] = [];
  if (typeof identity.principal === "string") principals.push(identity.principal);
  const token = isObject(identity.token) ? identity.token : undefined;
  if (typeof token?.subject === "string") principals.push(token.subject);
  const raw = token?.scopes ?? identity.scopes;
  const scopes = Array.isArray(raw) ? raw.filter((s): s is string => typeof s === "string") : [];
  return { principals, scopes };
}
