/**
 * The stdio generator: the inputs of one run (one server process), each the bytes written to its stdin. A run
 * opens with a few frames that cannot pin an era, then pins one (`initialize` or a 2026 `server/discover`),
 * then mixes valid requests of both eras, notifications, responses, mutated messages, framing oddities and a
 * few deliberate pairs (a slow call and its cancellation; a slow call and a request reusing its id).
 */
import { LIMITS, MODERN } from "./catalog.mjs";
import {
  freshId,
  initializeMessage,
  META_FAULTS,
  modernMeta,
  randomCall,
  randomNotification,
  randomResponse,
  requestMessage,
} from "./messages.mjs";
import { encodeJson, mutateBytes, mutateValue } from "./mutate.mjs";

const BODY_WEIGHTS = {
  valid: 30,
  "other-era": 4,
  "meta-fault": 4,
  notification: 4,
  response: 3,
  "value-mutation": 25,
  "byte-mutation": 15,
  framing: 6,
  garbage: 2,
  "huge echo": 0.1,
  "cancel-pair": 1,
  "duplicate-pair": 1,
  listen: 1,
  "exact-limit": 0.05,
};

const line = (text) => Buffer.from(`${text}\n`);

/** Generates one run: `{ era, inputs }`, each input `{ index, bytes, kind, waitAfter? }`. */
export function stdioRun(rng, { size, firstIndex }) {
  const era = rng.chance(0.5) ? "legacy" : "modern";
  const run = new RunState(rng, era);
  const inputs = [];
  // Bytes of the line still open (an input without a newline joins the next one).
  let open = 0;
  const push = (bytes, kind, extra = {}) => {
    // Only the run's designed end may cross maxFrameBytes: an input that would is replaced by a small one.
    if (lineLengthAfter(open, bytes) > LIMITS.stdioMaxFrameBytes) return push(...run.small());
    open = lineLengthAfter(open, bytes, true);
    inputs.push({ index: firstIndex + inputs.length, bytes, kind, ...extra });
  };
  for (let i = 0, n = rng.int(3); i < n && inputs.length < size; i++) push(...run.prefix());
  if (inputs.length < size) push(...run.pin(), { waitAfter: true });
  while (inputs.length < size) push(...run.body());
  return { era, inputs };
}

/** The longest line `bytes` makes after `open` bytes of an unfinished line (or, with `tail`, the new open length). */
function lineLengthAfter(open, bytes, tail = false) {
  let longest = 0;
  let start = 0;
  let carried = open;
  for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, start)) {
    longest = Math.max(longest, carried + newline - start);
    carried = 0;
    start = newline + 1;
  }
  const current = carried + bytes.length - start;
  return tail ? current : Math.max(longest, current);
}

class RunState {
  constructor(rng, era) {
    this.rng = rng;
    this.era = era;
    this.counter = 0;
    this.used = [];
  }

  id() {
    const id = freshId(this.rng, ++this.counter);
    this.used.push(id);
    if (this.used.length > 64) this.used.shift();
    return id;
  }

  /** A request of `era` (legacy: no `_meta`; modern: the envelope, possibly faulty). */
  request(era, fault) {
    const { method, params } = randomCall(this.rng, era);
    return requestMessage(
      this.id(),
      method,
      params,
      era === "modern" ? modernMeta(this.rng, fault) : undefined,
    );
  }

  /** Frames that cannot pin an era: garbage, blank lines, notifications, responses. */
  prefix() {
    const rng = this.rng;
    switch (rng.int(4)) {
      case 0:
        return [line(rng.pick(["hello", "{", "[1,2", '{"jsonrpc":"2.0"}', "null"])), "prefix garbage"];
      case 1:
        return [Buffer.from(rng.pick(["\n", "   \n", "\r\n", "\t\n"])), "prefix blank"];
      case 2:
        return [line(JSON.stringify(randomNotification(rng))), "prefix notification"];
      default:
        return [line(JSON.stringify(randomResponse(rng, `x${rng.int(99)}`))), "prefix response"];
    }
  }

  /** A small valid request. */
  small() {
    return [line(JSON.stringify(this.request(this.era))), "valid"];
  }

  /** The request that pins the run's era. */
  pin() {
    if (this.era === "legacy") return [line(JSON.stringify(initializeMessage(this.id()))), "pin initialize"];
    const message = requestMessage(this.id(), "server/discover", {}, modernMeta(this.rng));
    return [line(JSON.stringify(message)), "pin server/discover"];
  }

  body() {
    const rng = this.rng;
    const kind = rng.weighted(BODY_WEIGHTS);
    const other = this.era === "legacy" ? "modern" : "legacy";
    switch (kind) {
      case "valid":
        return [line(JSON.stringify(this.request(this.era))), kind];
      case "other-era":
        return [line(JSON.stringify(this.request(other))), kind];
      case "meta-fault":
        return [line(JSON.stringify(this.request("modern", rng.pick(META_FAULTS)))), kind];
      case "notification":
        return [line(JSON.stringify(randomNotification(rng))), kind];
      case "response":
        return [line(JSON.stringify(randomResponse(rng, rng.pick([...this.used, "z"])))), kind];
      case "value-mutation": {
        const { value, name } = mutateValue(rng, this.request(this.era), this.used);
        return [line(encodeJson(value)), `value: ${name}`];
      }
      case "byte-mutation": {
        const { bytes, name } = mutateBytes(rng, Buffer.from(JSON.stringify(this.request(this.era))));
        return [Buffer.concat([bytes, Buffer.from("\n")]), `bytes: ${name}`];
      }
      case "framing":
        return this.framing();
      case "garbage": {
        const bytes = rng.chance(0.5) ? rng.bytes(rng.range(1, 64)) : Buffer.from(rng.word(40));
        return [Buffer.concat([bytes, Buffer.from("\n")]), kind];
      }
      case "huge echo": {
        // An id or method name as long as the frame allows: an answer that repeats it passes the outbound bound.
        const message = rng.chance(0.5) ? { jsonrpc: "2.0", id: 0, method: "ping" } : this.request(this.era);
        if (rng.chance(0.5)) message.jsonrpc = "1.0";
        const key = rng.chance(0.7) ? "id" : "method";
        message[key] = "";
        const room = LIMITS.stdioMaxFrameBytes - Buffer.byteLength(JSON.stringify(message));
        message[key] = "i".repeat(rng.chance(0.3) ? 100_000 : room - rng.int(100));
        return [line(JSON.stringify(message)), `${kind}: ${key}`];
      }
      case "cancel-pair":
        return this.cancelPair();
      case "duplicate-pair":
        return this.duplicatePair();
      case "listen": {
        const id = this.id();
        const params = { notifications: rng.pick([{ toolsListChanged: true }, {}]) };
        const listen = requestMessage(id, "subscriptions/listen", params, modernMeta(rng));
        const frames = [line(JSON.stringify(listen))];
        if (rng.chance(0.5)) frames.push(line(JSON.stringify(cancel(id))));
        return [Buffer.concat(frames), kind];
      }
      default:
        return this.exactLimit();
    }
  }

  framing() {
    const rng = this.rng;
    const text = JSON.stringify(this.request(this.era));
    switch (rng.int(6)) {
      case 0:
        return [
          Buffer.from(rng.pick(["\n", " \n", "\t \t\n", "\r\n", "\r\r\n", "\n\n\n"])),
          "framing: blank",
        ];
      case 1:
        return [Buffer.from(`${text}\r\n`), "framing: CRLF"];
      case 2:
        // No newline: the bytes join the next input's first line.
        return [Buffer.from(text), "framing: no newline"];
      case 3: {
        // A raw newline inside the message splits it into two lines.
        const at = rng.int(text.length);
        return [Buffer.from(`${text.slice(0, at)}\n${text.slice(at)}\n`), "framing: split"];
      }
      case 4:
        return [Buffer.from(`${text}\n${JSON.stringify(this.request(this.era))}\n`), "framing: two frames"];
      default:
        return [Buffer.from(`  ${text}\t \n`), "framing: padded"];
    }
  }

  /** A slow call and its cancellation, in one write: the call gets no answer. */
  cancelPair() {
    const id = this.id();
    const call = this.slowCall(id, 5_000);
    return [Buffer.concat([line(JSON.stringify(call)), line(JSON.stringify(cancel(id)))]), "cancel pair"];
  }

  /** A slow call and a request reusing its id, in one write: the second is refused as a duplicate. */
  duplicatePair() {
    const id = this.id();
    const call = this.slowCall(id, 1_000);
    const again = this.request(this.era);
    again.id = id;
    return [Buffer.concat([line(JSON.stringify(call)), line(JSON.stringify(again))]), "duplicate pair"];
  }

  slowCall(id, ms) {
    const meta = this.era === "modern" ? modernMeta(this.rng) : undefined;
    return requestMessage(id, "tools/call", { name: "sleep", arguments: { ms } }, meta);
  }

  /** A valid request padded to exactly `maxFrameBytes` (or with a `\r` taking the last byte). */
  exactLimit() {
    const message = this.request(this.era);
    const crlf = this.rng.chance(0.5);
    const target = LIMITS.stdioMaxFrameBytes - (crlf ? 1 : 0);
    message.pad = "";
    const base = Buffer.byteLength(JSON.stringify(message));
    message.pad = "p".repeat(target - base);
    const bytes = Buffer.from(`${JSON.stringify(message)}${crlf ? "\r" : ""}\n`);
    return [bytes, crlf ? "exact limit (CRLF)" : "exact limit"];
  }
}

function cancel(id) {
  return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "fuzz" } };
}

/** The bytes that end a run past `maxFrameBytes`, in one of three shapes. */
export function oversize(rng) {
  const limit = LIMITS.stdioMaxFrameBytes;
  switch (rng.int(3)) {
    case 0: {
      const message = { jsonrpc: "2.0", id: "over", method: "ping", params: { pad: "" } };
      message.params.pad = "o".repeat(limit + 1 - Buffer.byteLength(JSON.stringify(message)));
      return { bytes: Buffer.from(`${JSON.stringify(message)}\n`), kind: "over by one byte" };
    }
    case 1:
      return { bytes: Buffer.alloc(limit + rng.range(1, 5000), 0x61), kind: "no newline" };
    default:
      return { bytes: Buffer.alloc(limit * 2 + 1, 0x20), kind: "twice the limit of spaces" };
  }
}

/** The request that shows the server still answers after a run. */
export function probe(era, run) {
  const id = `probe-${run}`;
  if (era === "legacy") return { id, bytes: line(JSON.stringify(requestMessage(id, "ping", {}))) };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return { id, bytes: line(JSON.stringify(requestMessage(id, "server/discover", {}, meta))) };
}
