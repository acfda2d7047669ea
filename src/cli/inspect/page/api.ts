// The page's only ways out: POST /api with the token in a header, and the event stream. Both go to the origin
// the page came from; the token lives in memory (and the address bar), never in storage.

const token = new URLSearchParams(location.search).get("token") ?? "";

/** An operation the inspector refused or the server answered with an error. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code?: unknown,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Runs one inspector operation. */
export async function api<T = unknown>(op: string, params: { [key: string]: unknown } = {}): Promise<T> {
  const response = await fetch("/api", {
    method: "POST",
    headers: { "content-type": "application/json", "x-mcpkit-token": token },
    body: JSON.stringify({ op, params }),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await response.text();
  let body: { result?: T; error?: { message?: string; code?: unknown; data?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ApiError(`the inspector answered ${response.status}: ${text.slice(0, 200)}`);
  }
  if (body.error !== undefined) {
    throw new ApiError(body.error.message ?? "error", body.error.code, body.error.data);
  }
  return body.result as T;
}

type Listener = (data: unknown) => void;
const listeners = new Map<string, Listener[]>();
let source: EventSource | undefined;

/** Listens to one kind of inspector event (the stream is opened on first use). */
export function on(type: string, listener: Listener): void {
  let list = listeners.get(type);
  if (list === undefined) {
    list = [];
    listeners.set(type, list);
    source?.addEventListener(type, (event) => dispatch(type, event));
  }
  list.push(listener);
}

function dispatch(type: string, event: Event): void {
  const data = JSON.parse((event as MessageEvent<string>).data) as unknown;
  for (const listener of listeners.get(type) ?? []) listener(data);
}

/** Opens the event stream (after the listeners are in place, so the backlog reaches them). */
export function openEvents(onState: (open: boolean) => void): void {
  source = new EventSource(`/events?token=${encodeURIComponent(token)}`);
  for (const type of listeners.keys()) source.addEventListener(type, (event) => dispatch(type, event));
  source.onopen = () => onState(true);
  source.onerror = () => onState(false);
}
