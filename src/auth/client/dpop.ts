import {
  allowInsecureRequests,
  type CryptoKeyPair,
  customFetch,
  DPoP,
  type DPoPHandle,
  generateKeyPair,
  protectedResourceRequest,
} from "oauth4webapi";

/**
 * DPoP (RFC 9449) for the OAuth client: one key pair, the library's proof handle (token requests and resource
 * requests share its nonce cache, per origin), and proofs for requests the MCP transport sends itself.
 */
export class DpopKeys {
  private constructor(readonly handle: DPoPHandle) {}

  /** A handle on `keys`, or on a fresh ES256 key pair. */
  static async create(keys: CryptoKeyPair | undefined): Promise<DpopKeys> {
    const pair = keys ?? (await generateKeyPair("ES256", { extractable: false }));
    return new DpopKeys(DPoP({}, pair));
  }

  /**
   * `authorization: DPoP <token>` and a fresh `dpop` proof (with `ath`, and the origin's nonce when one is
   * known) for one request the transport is about to send. The library builds them; nothing is sent here.
   */
  async headers(token: string, method: string, url: string): Promise<{ [name: string]: string }> {
    let captured: Record<string, string> = {};
    await protectedResourceRequest(token, method, new URL(url), undefined, undefined, {
      DPoP: this.handle,
      [allowInsecureRequests]: true,
      [customFetch]: async (_url: string, init: { headers: Record<string, string> }) => {
        captured = init.headers;
        return new Response(null, { status: 204 });
      },
    });
    const out: { [name: string]: string } = {};
    if (captured.authorization !== undefined) out.authorization = captured.authorization;
    if (captured.dpop !== undefined) out.dpop = captured.dpop;
    return out;
  }

  /** Remembers a nonce a resource server sent (`DPoP-Nonce`) for the next proofs to its origin. */
  async rememberNonce(url: string, nonce: string): Promise<void> {
    await protectedResourceRequest("nonce", "GET", new URL(url), undefined, undefined, {
      DPoP: this.handle,
      [allowInsecureRequests]: true,
      [customFetch]: async () => new Response(null, { status: 204, headers: { "dpop-nonce": nonce } }),
    });
  }
}
