import type { FetchLike } from "../../http/index.js";
import { isLoopbackHost } from "../../http/index.js";
import { authError } from "./errors.js";

/** How the OAuth client reaches authorization servers and metadata: its `fetch` and its limits. */
export interface AuthHttp {
  readonly fetch: FetchLike;
  /** Plain `http` to non-loopback hosts (never by default). */
  readonly allowHttp: boolean;
  /** Each metadata, registration and token request must answer within this. */
  readonly timeoutMs: number;
}

/** Metadata and registration documents larger than this are not read. */
export const MAX_DOCUMENT_BYTES = 256 * 1024;

/**
 * Parses an endpoint the OAuth client is about to call or send a person to: `https`, or plain `http` to a
 * loopback host (or anywhere with `allowHttp`); never userinfo. Throws `UNAUTHORIZED` `insecure_endpoint`.
 */
export function checkEndpoint(raw: unknown, what: string, http: Pick<AuthHttp, "allowHttp">): URL {
  let url: URL;
  try {
    if (typeof raw !== "string") throw new Error();
    url = new URL(raw);
  } catch {
    throw authError("insecure_endpoint", `the ${what} is not an absolute URL`, { endpoint: what });
  }
  const httpOk = url.protocol === "http:" && (http.allowHttp || isLoopbackHost(url.hostname));
  if ((url.protocol !== "https:" && !httpOk) || url.username !== "" || url.password !== "") {
    throw authError("insecure_endpoint", `the ${what} must be https (plain http only to loopback hosts)`, {
      endpoint: what,
      url: `${url.protocol}//${url.host}${url.pathname}`,
    });
  }
  return url;
}

/** A document fetched with GET: its status, media type and text (bounded); `status: 0` on a network failure. */
export interface FetchedDocument {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** GETs a metadata document: no redirects, bounded time and size. Never throws for HTTP or network trouble. */
export async function getDocument(http: AuthHttp, url: string): Promise<FetchedDocument> {
  try {
    const response = await http.fetch(url, {
      method: "GET",
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(http.timeoutMs),
    });
    const contentType = response.headers.get("content-type") ?? "";
    const declared = Number(response.headers.get("content-length"));
    if (response.status !== 200 || (Number.isFinite(declared) && declared > MAX_DOCUMENT_BYTES)) {
      await response.body?.cancel().catch(() => {});
      return { status: response.status, contentType, text: "" };
    }
    const text = await response.text();
    if (text.length > MAX_DOCUMENT_BYTES) return { status: 413, contentType, text: "" };
    return { status: response.status, contentType, text };
  } catch {
    return { status: 0, contentType: "", text: "" };
  }
}

/** The JSON object of a 200 `application/json` (or `+json`) document; undefined for anything else. */
export function jsonObjectOf(document: FetchedDocument): { [key: string]: unknown } | undefined {
  const media = document.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (document.status !== 200 || !(media === "application/json" || media.endsWith("+json"))) return undefined;
  try {
    const value: unknown = JSON.parse(document.text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as { [key: string]: unknown })
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The client's `fetch` as the OAuth library calls it (its `customFetch`): the library's request options are
 * fetch options (a `URLSearchParams` body included), which the transport's narrower `FetchLike` type does not say.
 */
export function libraryFetch(http: AuthHttp): (url: string, options: unknown) => Promise<Response> {
  return (url, options) => http.fetch(url, options as RequestInit);
}
