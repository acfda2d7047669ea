import { checkOptions, optionError } from "../jsonrpc/config-check.js";

/** Options of {@link checkOpenLink}; unknown keys are refused. */
export interface OpenLinkPolicy {
  /** Schemes accepted besides `https`, without the colon (`"mailto"`); `javascript`, `data` and `file` never are. */
  schemes?: readonly string[];
}

/** The verdict on a `ui/open-link` URL: the URL to open, or why not. */
export type OpenLinkVerdict = { ok: true; url: string } | { ok: false; reason: string };

const NEVER = new Set(["javascript", "data", "file", "vbscript", "blob"]);
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

/**
 * The open-link policy (the spec leaves URL checks to hosts): an absolute `https` URL with a host and no
 * userinfo; other schemes only when `policy.schemes` names them; `javascript:`, `data:`, `file:` (and `vbscript:`,
 * `blob:`), relative URLs and unconfigured schemes refused. A passing URL is still neither consent nor
 * navigation: the host decides whether to open it.
 *
 * @example
 * checkOpenLink("https://example.com/docs"); // { ok: true, url: "https://example.com/docs" }
 * checkOpenLink("javascript:alert(1)"); // { ok: false, reason: "the scheme javascript: is never opened" }
 */
export function checkOpenLink(url: unknown, policy?: OpenLinkPolicy): OpenLinkVerdict {
  const opts = checkOptions(policy, ["schemes"], "policy");
  const extra = new Set<string>();
  for (const scheme of opts.schemes ?? []) {
    const name = String(scheme).toLowerCase();
    if (!SCHEME.test(name) || NEVER.has(name)) throw optionError("policy.schemes", `cannot allow ${scheme}`);
    extra.add(name);
  }
  if (typeof url !== "string" || url === "")
    return { ok: false, reason: "the URL must be a non-empty string" };
  if (url.length > 8_192) return { ok: false, reason: "the URL is too long" };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "the URL is not absolute" };
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (NEVER.has(scheme)) return { ok: false, reason: `the scheme ${scheme}: is never opened` };
  if (scheme === "https") {
    if (parsed.hostname === "") return { ok: false, reason: "the URL has no host" };
    if (parsed.username !== "" || parsed.password !== "") {
      return { ok: false, reason: "the URL carries userinfo" };
    }
    return { ok: true, url: parsed.href };
  }
  if (!extra.has(scheme)) return { ok: false, reason: `the scheme ${scheme}: is not allowed` };
  return { ok: true, url };
}
