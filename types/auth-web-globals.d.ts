// The Web-standard globals mcpkit/auth (src/auth) uses beyond those of types/web-globals.d.ts: every name exists
// in Node >= 20, Deno, Bun, browsers and Workers with this shape. Only tsconfig.core.json sees this file.

interface URL {
  readonly origin: string;
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

interface URLSearchParams {
  get(name: string): string | null;
  set(name: string, value: string): void;
  has(name: string): boolean;
  toString(): string;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
declare var URLSearchParams: {
  prototype: URLSearchParams;
  new (init?: string | Record<string, string> | [string, string][] | URLSearchParams): URLSearchParams;
};

interface Headers {
  set(name: string, value: string): void;
}

interface Response {
  text(): Promise<string>;
}

interface CryptoKey {
  readonly algorithm: { name: string };
  readonly extractable: boolean;
  readonly usages: string[];
}

interface SubtleCrypto {
  // PKCS#8 private keys for private_key_jwt (ECDSA P-256, RSASSA-PKCS1-v1_5, RSA-PSS).
  importKey(
    format: "pkcs8",
    keyData: Uint8Array | ArrayBuffer,
    algorithm: { name: string; namedCurve?: string; hash?: string },
    extractable: boolean,
    keyUsages: "sign"[],
  ): Promise<CryptoKey>;
}
