// The Web-standard globals the platform-neutral layers may use. Only tsconfig.core.json sees this file, so a
// Node-only API (Buffer, process, node:*) in those layers fails to compile. Every name here exists in Node >= 20,
// Deno, Bun, browsers and Workers with the same shape.

interface Event {
  readonly type: string;
}
interface EventListenerObject {
  handleEvent(event: Event): void;
}
type EventListenerOrEventListenerObject = ((event: Event) => void) | EventListenerObject;

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(
    type: "abort",
    listener: EventListenerOrEventListenerObject,
    options?: { once?: boolean },
  ): void;
  removeEventListener(type: "abort", listener: EventListenerOrEventListenerObject): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: unknown): AbortSignal;
  timeout(milliseconds: number): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
};

interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };

interface DOMException extends Error {
  readonly name: string;
}
declare var DOMException: { prototype: DOMException; new (message?: string, name?: string): DOMException };

interface TextEncoder {
  encode(input?: string): Uint8Array;
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };
interface TextDecoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder;
};

type TimerHandle = unknown;
declare function setTimeout(handler: () => void, timeout?: number): TimerHandle;
declare function clearTimeout(handle: TimerHandle | undefined): void;
declare function setInterval(handler: () => void, timeout?: number): TimerHandle;
declare function clearInterval(handle: TimerHandle | undefined): void;
declare function queueMicrotask(callback: () => void): void;
declare function structuredClone<T>(value: T): T;

interface Performance {
  now(): number;
}
declare var performance: Performance;

interface Console {
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
}
declare var console: Console;

interface Crypto {
  getRandomValues<T extends Uint8Array>(array: T): T;
  randomUUID(): string;
}
declare var crypto: Crypto;

interface CryptoKey {
  readonly type: string;
}
interface SubtleCrypto {
  digest(algorithm: string | { name: string }, data: Uint8Array | ArrayBuffer): Promise<ArrayBuffer>;
  // HMAC only, as far as requestState sealing (src/server) uses it.
  importKey(
    format: "raw",
    keyData: Uint8Array | ArrayBuffer,
    algorithm: { name: "HMAC"; hash: string },
    extractable: boolean,
    keyUsages: ("sign" | "verify")[],
  ): Promise<CryptoKey>;
  sign(algorithm: "HMAC", key: CryptoKey, data: Uint8Array | ArrayBuffer): Promise<ArrayBuffer>;
  verify(
    algorithm: "HMAC",
    key: CryptoKey,
    signature: Uint8Array | ArrayBuffer,
    data: Uint8Array | ArrayBuffer,
  ): Promise<boolean>;
}
interface Crypto {
  readonly subtle: SubtleCrypto;
}

// Fetch and streams, as far as the Streamable HTTP handler (src/http) uses them: subsets of the standard shapes.

interface URL {
  readonly host: string;
  readonly protocol: string;
}
declare var URL: { prototype: URL; new (url: string, base?: string): URL };

interface Headers {
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(callback: (value: string, name: string) => void): void;
}
type HeadersInit = [string, string][] | Record<string, string> | Headers;
declare var Headers: { prototype: Headers; new (init?: HeadersInit): Headers };

interface QueuingStrategy<T> {
  highWaterMark?: number;
  size?: (chunk: T) => number;
}
interface ReadableStreamDefaultController<R> {
  readonly desiredSize: number | null;
  close(): void;
  enqueue(chunk: R): void;
  error(reason?: unknown): void;
}
interface UnderlyingDefaultSource<R> {
  start?: (controller: ReadableStreamDefaultController<R>) => void | PromiseLike<void>;
  pull?: (controller: ReadableStreamDefaultController<R>) => void | PromiseLike<void>;
  cancel?: (reason?: unknown) => void | PromiseLike<void>;
}
type ReadableStreamReadResult<R> = { done: false; value: R } | { done: true; value?: undefined };
interface ReadableStreamDefaultReader<R> {
  read(): Promise<ReadableStreamReadResult<R>>;
  cancel(reason?: unknown): Promise<void>;
}
interface ReadableStream<R = unknown> {
  cancel(reason?: unknown): Promise<void>;
  getReader(): ReadableStreamDefaultReader<R>;
}
declare var ReadableStream: {
  prototype: ReadableStream;
  new <R = unknown>(
    underlyingSource?: UnderlyingDefaultSource<R>,
    strategy?: QueuingStrategy<R>,
  ): ReadableStream<R>;
};

type BodyInit = ReadableStream<Uint8Array> | Uint8Array | string;
interface Request {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly body: ReadableStream<Uint8Array> | null;
}
declare var Request: { prototype: Request; new (input: string, init?: RequestInit): Request };
interface ResponseInit {
  status?: number;
  headers?: HeadersInit;
}
interface Response {
  readonly status: number;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
}
declare var Response: {
  prototype: Response;
  new (body?: BodyInit | null, init?: ResponseInit): Response;
};

// The fetch client side, as far as the Streamable HTTP client (src/http/client/) uses it.
interface URL {
  readonly hostname: string;
  readonly username: string;
  readonly password: string;
  readonly hash: string;
  readonly pathname: string;
  readonly href: string;
}
interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
  signal?: AbortSignal | null;
  redirect?: "follow" | "error" | "manual";
}
interface Response {
  text(): Promise<string>;
  /** `opaqueredirect` for a redirect answered to `redirect: "manual"` in browsers. */
  readonly type: string;
}
declare function fetch(input: string | URL, init?: RequestInit): Promise<Response>;
