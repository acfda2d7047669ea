import { checkOptions } from "../jsonrpc/config-check.js";
import type { UiCsp, UiPermissions, UiResourceMeta } from "./types.js";

/** Options of {@link appSandbox}; unknown keys are refused. */
export interface AppSandboxOptions {
  /** Restricts further: return `false` to drop a declared origin (every well-formed one is kept by default). */
  allowDomain?: (origin: string, list: keyof UiCsp) => boolean;
  /** The permissions the host is willing to grant (default: none; the spec lets a host honour them or not). */
  grant?: readonly (keyof UiPermissions)[];
}

/** The sandbox a host applies to a view, and what it reports in `hostCapabilities.sandbox`. */
export interface AppSandbox {
  /** The Content-Security-Policy to apply (a `<meta http-equiv>` in the document, or a response header). */
  readonly csp: string;
  /** The iframe's `allow` attribute (Permission Policy), `""` when nothing is granted. */
  readonly allow: string;
  /** The iframe's `sandbox` attribute: scripts and forms, never same-origin, top navigation or popups. */
  readonly sandbox: string;
  /** What was applied, for `hostCapabilities.sandbox`: the origins kept and the permissions granted. */
  readonly applied: { csp: UiCsp; permissions: UiPermissions };
}

// An origin with an optional `*.` subdomain wildcard and port: nothing a CSP would read as another token.
const ORIGIN =
  /^(https?|wss?):\/\/(\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/i;

/** True for an origin the CSP builder accepts: `https://host[:port]`, `https://*.host`, http/ws/wss likewise. */
export function isCspOrigin(value: string): boolean {
  return ORIGIN.test(value);
}

const LISTS: readonly (keyof UiCsp)[] = [
  "connectDomains",
  "resourceDomains",
  "frameDomains",
  "baseUriDomains",
];
const FEATURES: readonly [keyof UiPermissions, string][] = [
  ["camera", "camera"],
  ["microphone", "microphone"],
  ["geolocation", "geolocation"],
  ["clipboardWrite", "clipboard-write"],
];

/**
 * The `allow` attribute for permissions: the Permission Policy feature names, joined with `"; "` (the same string
 * as ext-apps' `buildAllowAttribute`).
 *
 * @example
 * allowAttribute({ camera: {}, clipboardWrite: {} }); // "camera; clipboard-write"
 */
export function allowAttribute(permissions: UiPermissions | undefined): string {
  if (permissions === undefined) return "";
  return FEATURES.filter(([key]) => permissions[key] !== undefined)
    .map(([, feature]) => feature)
    .join("; ");
}

/**
 * Builds the sandbox of a view from its resource's `_meta.ui` declarations (declarations, not grants). Without a
 * `csp`: the restrictive default (no default source; scripts and styles from self and inline; images and media
 * from self and `data:`; no connections, no frames, `base-uri 'self'`). Workers the view starts from its own code
 * (`blob:` URLs) are allowed (`worker-src 'self' blob:`): they load nothing the view could not run inline. With one: the declared origins added to
 * their directives, never an undeclared one; a malformed entry (not an origin, or carrying a quote, `;` or
 * space) is dropped. `object-src 'none'` always applies. Permissions are granted only where `options.grant`
 * names them.
 *
 * @example
 * const { csp, allow, sandbox, applied } = appSandbox(app.ui, { grant: ["clipboardWrite"] });
 * iframe.setAttribute("sandbox", sandbox);
 * iframe.setAttribute("allow", allow);
 */
export function appSandbox(ui: UiResourceMeta | undefined, options?: AppSandboxOptions): AppSandbox {
  const opts = checkOptions(options, ["allowDomain", "grant"], "options");
  const declared = ui?.csp;
  const kept: UiCsp = {};
  for (const list of LISTS) {
    const entries = declared?.[list];
    if (!Array.isArray(entries)) continue;
    const origins = entries.filter(
      (e): e is string =>
        typeof e === "string" &&
        isCspOrigin(e) &&
        (opts.allowDomain === undefined || opts.allowDomain(e, list)),
    );
    kept[list] = [...new Set(origins)];
  }
  const res = (kept.resourceDomains ?? []).join(" ");
  const plus = (base: string) => (res === "" ? base : `${base} ${res}`);
  const or = (list: string[] | undefined, fallback: string) =>
    list === undefined || list.length === 0 ? fallback : list.join(" ");
  const directives = [
    "default-src 'none'",
    `script-src ${plus("'self' 'unsafe-inline'")}`,
    `style-src ${plus("'self' 'unsafe-inline'")}`,
    `img-src ${plus("'self' data:")}`,
    `font-src ${plus("'self'")}`,
    `media-src ${plus("'self' data:")}`,
    `connect-src ${or(kept.connectDomains, "'none'")}`,
    `frame-src ${or(kept.frameDomains, "'none'")}`,
    `base-uri ${or(kept.baseUriDomains, "'self'")}`,
    // Workers the view starts from its own code (blob: URLs); without it they fall back to script-src and fail.
    "worker-src 'self' blob:",
    "object-src 'none'",
  ];
  const permissions: UiPermissions = {};
  const grant = new Set(opts.grant ?? []);
  for (const [key] of FEATURES) {
    if (ui?.permissions?.[key] !== undefined && grant.has(key)) permissions[key] = {};
  }
  return Object.freeze({
    csp: directives.join("; "),
    allow: allowAttribute(permissions),
    sandbox: "allow-scripts allow-forms",
    applied: { csp: kept, permissions },
  });
}
