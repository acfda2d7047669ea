import { fromBase64url, toBase64url } from "../../jsonrpc/base64.js";
import { isObject, type JsonValue } from "../../jsonrpc/message.js";
import type { InputResponses } from "../../protocol/types/input.js";
import { canonicalJson, sha256Hex } from "./fingerprint.js";
import { MemoryRequestStateStore, type RequestStateStore, stateCapacityError } from "./store.js";

const VERSION = "v1";
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/**
 * How deep the bound params may nest: `arguments` (and every other bound member) at most 32 levels, `{}` being
 * one. Deeper params have no canonical form to bind a state to: the request is refused with `-32602`.
 */
export const MAX_BOUND_DEPTH = 32;

/** The params a state is bound to: all but `inputResponses`, `requestState` and `_meta`. */
export function boundParams(params: { readonly [key: string]: unknown }): { [key: string]: unknown } {
  const { inputResponses: _r, requestState: _s, _meta: _m, ...bound } = params;
  return bound;
}

/** What a sealed state is bound to: who asked, with which method and which params. */
export interface StateBinding {
  /** The identity fingerprint of the requester. */
  readonly principal: string;
  readonly method: string;
  /** The request's params; `inputResponses`, `requestState` and `_meta` are left out of the binding. */
  readonly params: { readonly [key: string]: unknown };
}

/** Why a `requestState` was refused (`used`: single-use mode, the token was spent or is unknown to the store). */
export type StateRefusal = "malformed" | "invalid" | "expired" | "used";

/** The outcome of opening a `requestState`: the state, and the nonce that {@link RequestStateSealer.spend} takes. */
export type OpenedState =
  | { readonly ok: true; readonly state: JsonValue | undefined; readonly nonce: string }
  | { readonly ok: false; readonly reason: Exclude<StateRefusal, "used"> };

/**
 * Seals handler state into the opaque `requestState` of a 2026-07-28 `InputRequiredResult`, and opens it again
 * when the client retries. The token is `v1.<payload>.<mac>` (base64url): the payload holds the expiry, a
 * nonce and the state (readable by the client: put no secrets in state); the mac is HMAC-SHA256 with the
 * server's key over the payload and the binding (principal, method, params digest), so a token that was
 * altered, that another principal presents, or that comes back on another method or other params fails
 * verification. Web Crypto only: runs wherever the server runs.
 *
 * With a `store` (single-use mode) every sealed nonce is issued to the store, and a token opens for one
 * handler round only: {@link spend} takes its nonce out of the store.
 */
export class RequestStateSealer {
  private key: Promise<HmacKey> | undefined;
  private previousKeys: Promise<HmacKey>[] | undefined;

  constructor(
    /** `undefined`: 32 random bytes, drawn when the first state is sealed or opened. */
    private secret: Uint8Array | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly store?: RequestStateStore,
    /** Earlier keys (the `previousStateKeys` option): they open tokens sealed before a rotation, never seal. */
    private readonly previous: readonly Uint8Array[] = [],
  ) {}

  /**
   * Seals `state` (possibly `undefined`: the token then only proves the binding and the expiry). In single-use
   * mode, throws `-32603` "State capacity reached: ..." (`data.reason` `state_capacity`, `data.option`) when the
   * store has no room.
   */
  async seal(state: JsonValue | undefined, binding: StateBinding): Promise<string> {
    const nonce = toBase64url(crypto.getRandomValues(new Uint8Array(12)));
    const expiresAt = this.now() + this.ttlMs;
    const body: { [key: string]: unknown } = { e: expiresAt, n: nonce };
    if (state !== undefined) body.s = state;
    const payload = toBase64url(encoder.encode(JSON.stringify(body)));
    const signed = await this.signedText(payload, binding);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await this.cryptoKey(), signed));
    if (this.store !== undefined && (await this.store.issue(nonce, expiresAt)) !== true) {
      throw this.store instanceof MemoryRequestStateStore
        ? stateCapacityError("MemoryRequestStateStore.capacity", this.store.capacity, "unspent tokens")
        : stateCapacityError("singleUseState", undefined, "unspent tokens");
    }
    return `${VERSION}.${payload}.${toBase64url(mac)}`;
  }

  /**
   * Spends the nonce of an opened token: true when it may be used now (always, without a store); false when
   * the store refuses it (already spent, or unknown to the store). Exactly one of racing spends succeeds.
   */
  async spend(nonce: string): Promise<boolean> {
    return this.store === undefined || (await this.store.consume(nonce)) === true;
  }

  /** Opens a token sealed by {@link seal} under the same binding; never throws for a bad token. */
  async open(token: string, binding: StateBinding): Promise<OpenedState> {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: "malformed" };
    const payload = parts[1] ?? "";
    const payloadBytes = fromBase64url(payload);
    const mac = fromBase64url(parts[2] ?? "");
    if (mac === undefined || payloadBytes === undefined) return { ok: false, reason: "malformed" };
    const signed = await this.signedText(payload, binding);
    if (!(await this.verify(mac, signed))) return { ok: false, reason: "invalid" };
    // Authentic from here on: the server wrote this payload.
    const body = JSON.parse(decoder.decode(payloadBytes)) as { e: number; n: string; s?: JsonValue };
    if (!(this.now() < body.e)) return { ok: false, reason: "expired" };
    return { ok: true, state: body.s, nonce: body.n };
  }

  private async signedText(payload: string, binding: StateBinding): Promise<Uint8Array> {
    // The params object is one level above its members.
    const digest = await sha256Hex(canonicalJson(boundParams(binding.params), MAX_BOUND_DEPTH + 1));
    return encoder.encode(`${VERSION}.${payload}\n${binding.principal}\n${binding.method}\n${digest}`);
  }

  /** True when `mac` is the HMAC of `signed` under the current key or any previous one. */
  private async verify(mac: Uint8Array, signed: Uint8Array): Promise<boolean> {
    if (await crypto.subtle.verify("HMAC", await this.cryptoKey(), mac, signed)) return true;
    this.previousKeys ??= this.previous.map((secret) => importHmacKey(secret));
    for (const key of this.previousKeys) {
      if (await crypto.subtle.verify("HMAC", await key, mac, signed)) return true;
    }
    return false;
  }

  private cryptoKey(): Promise<HmacKey> {
    this.secret ??= crypto.getRandomValues(new Uint8Array(32));
    this.key ??= crypto.subtle.importKey("raw", this.secret, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    return this.key;
  }
}

function importHmacKey(secret: Uint8Array): Promise<HmacKey> {
  return crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

/** The HMAC key bytes of a configured key (without one, the sealer draws 32 random bytes on first use). */
export function stateSecret(key: string | Uint8Array): Uint8Array {
  return typeof key === "string" ? encoder.encode(key) : new Uint8Array(key);
}

/**
 * True for the `inputResponses` shape the wire allows: an object whose every answer is an object (what each
 * answer holds is the client's word, for the handler to check).
 */
export function isInputResponses(value: unknown): value is InputResponses {
  return isObject(value) && Object.values(value).every(isObject);
}
