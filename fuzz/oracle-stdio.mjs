/**
 * The stdio oracle: reads the bytes a run writes to the server's stdin, as the framing rules say (one JSON-RPC
 * message per `\n`-terminated line, a trailing `\r` dropped, blank lines skipped, strict UTF-8, a line over
 * `maxFrameBytes` fatal), and says for every line what must come back on stdout. It keeps the little state the
 * protocol has: the era a connection is pinned to (a successful `initialize` pins 2025-11-25, a valid 2026
 * request pins 2026-07-28), the ids in flight, open subscriptions and cancellations.
 *
 * An expectation is `{ key, classes, optional, input, note }`: `key` is the id's key (null for an answer without
 * id), `classes` the allowed answer classes (see oracle-core.mjs), `optional` true when 0 answers are right too
 * (a cancellation that may have come too late). Expectations may turn optional after they were handed out.
 */
import {
  classify,
  echoSize,
  hasModernMeta,
  idKey,
  initializeValid,
  isModernMethod,
  isObject,
  legacyAnswer,
  metaFaults,
  modernAnswer,
} from "./oracle-core.mjs";

const NEWLINE = 0x0a;
/** A `sleep` this long is certainly still running when the next frame of the same write arrives. */
const SLOW_MS = 1_000;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export class StdioOracle {
  constructor({ maxFrameBytes, maxOutboundFrameBytes }) {
    this.maxFrameBytes = maxFrameBytes;
    this.limit = maxOutboundFrameBytes;
    this.era = undefined;
    this.partial = [];
    this.partialBytes = 0;
    this.fatal = false;
    /** Every expectation with a key not yet known to be done, by key (a list: ids may repeat). */
    this.byKey = new Map();
    /** Keys of every request of the run. */
    this.seen = new Set();
    /** Keys certainly in flight: slow sleeps of the current input, open subscriptions. */
    this.certain = new Map();
    /** What the lines said, for the report. */
    this.lineKinds = {};
  }

  /**
   * Feeds the bytes of input `index`. Returns `{ expectations, fatal }`: the expectations of the lines this input
   * completes, and whether it crossed `maxFrameBytes` (then nothing after it counts: the server must end).
   */
  feed(bytes, index) {
    const expectations = [];
    if (this.fatal) return { expectations, fatal: true };
    for (const [key, entry] of this.certain) if (entry.kind === "sleep") this.certain.delete(key);
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline < 0) break;
      const piece = bytes.subarray(start, newline);
      if (this.partialBytes + piece.length > this.maxFrameBytes) return this.cross();
      const line = this.partial.length === 0 ? piece : Buffer.concat([...this.partial, piece]);
      this.partial = [];
      this.partialBytes = 0;
      this.line(line, index, expectations);
      start = newline + 1;
    }
    const rest = bytes.subarray(start);
    if (this.partialBytes + rest.length > this.maxFrameBytes) return this.cross();
    if (rest.length > 0) {
      this.partial.push(Buffer.from(rest));
      this.partialBytes += rest.length;
    }
    return { expectations, fatal: false };
  }

  cross() {
    this.fatal = true;
    this.count("over maxFrameBytes");
    return { expectations: [], fatal: true };
  }

  count(kind) {
    this.lineKinds[kind] = (this.lineKinds[kind] ?? 0) + 1;
  }

  line(raw, index, out) {
    let bytes = raw;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.every((byte) => byte === 0x20 || byte === 0x09)) return this.count("blank");
    let value;
    try {
      value = JSON.parse(utf8.decode(bytes));
    } catch {
      this.count("not JSON or not UTF-8");
      return out.push(this.expect(null, ["e-32700"], index, "parse error"));
    }
    const message = classify(value);
    switch (message.kind) {
      case "invalid": {
        this.count("invalid message");
        const key = message.id === undefined ? null : idKey(message.id);
        const expectation = this.request(key, ["e-32600"], index, "invalid message", false);
        return out.push(this.mayLoseId(expectation, message.id));
      }
      case "response":
        return this.count("response (no answer)");
      case "notification":
        this.count("notification (no answer)");
        return this.notification(value, index);
      default:
        this.count("request");
        return out.push(this.dispatch(value, index, raw.length));
    }
  }

  /** An expectation, registered under its key. */
  expect(key, classes, index, note) {
    const expectation = { key, classes, optional: false, input: index, note };
    if (key !== null) {
      const list = this.byKey.get(key) ?? [];
      list.push(expectation);
      this.byKey.set(key, list);
    }
    return expectation;
  }

  /**
   * A request's expectation: a repeated id may be refused as a duplicate while the first is in flight. `valid`:
   * a request the server runs (an invalid message is refused at once and never in flight).
   */
  request(key, classes, index, note, valid = true) {
    if (key === null || !valid) return this.expect(key, classes, index, note);
    if (this.certain.has(key)) return this.expect(key, ["e-32600"], index, `${note}, duplicate id`);
    const allowed = this.seen.has(key) && !classes.includes("e-32600") ? [...classes, "e-32600"] : classes;
    this.seen.add(key);
    return this.expect(key, allowed, index, note);
  }

  dispatch(message, index, frameBytes) {
    const { id, method } = message;
    const params = message.params ?? {};
    const key = idKey(id);
    const duplicate = this.certain.has(key);
    const note = `${method} (${this.era ?? "unpinned"})`;
    let classes;
    if (this.era === "legacy") classes = legacyAnswer(method, params, id, this.limit);
    else if (this.era === undefined && !hasModernMeta(params) && method === "initialize") {
      classes = initializeValid(params) ? ["ok"] : ["e-32602"];
      if (classes[0] === "ok" && !duplicate) this.era = "legacy";
    } else if (this.era === undefined && !hasModernMeta(params) && method === "ping") classes = ["ok"];
    else {
      classes = modernAnswer(method, params, id, this.limit);
      if (this.era === undefined && isModernMethod(method) && metaFaults(params).length === 0 && !duplicate) {
        this.era = "modern";
      }
    }
    // A request as large as the bound may be answered with more than the bound (its id, names, text).
    if (frameBytes > this.limit / 2 && !classes.includes("too-large")) classes = [...classes, "too-large"];
    const expectation = this.mayLoseId(this.request(key, classes, index, note), id);
    if (duplicate) return expectation;
    if (classes.length === 1 && classes[0] === "ack") this.certain.set(key, { kind: "listen" });
    const ms = method === "tools/call" && params.name === "sleep" ? params.arguments?.ms : undefined;
    if (classes.length === 1 && classes[0] === "ok" && Number.isInteger(ms) && ms >= SLOW_MS) {
      this.certain.set(key, { kind: "sleep", expectation });
    }
    return expectation;
  }

  /**
   * An answer whose id alone would pass the outbound bound is sent without it (it is still an answer): such an
   * expectation may be met by an answer with no id.
   */
  mayLoseId(expectation, id) {
    if (id !== undefined && echoSize(id) + 2_000 > this.limit) expectation.anonymousOk = true;
    return expectation;
  }

  notification(message, index) {
    if (message.method !== "notifications/cancelled" || !isObject(message.params)) return;
    const target = message.params.requestId;
    if (typeof target !== "string" && typeof target !== "number") return;
    const key = idKey(target);
    const certain = this.certain.get(key);
    if (certain?.kind === "sleep") {
      // Cancelled while it certainly runs: it gets no answer.
      certain.expectation.classes = [];
      certain.expectation.optional = true;
      certain.expectation.note += `, cancelled by input ${index}`;
      this.certain.delete(key);
      return;
    }
    if (certain?.kind === "listen") this.certain.delete(key);
    // Cancelled when it may already be answered: an answer, or none, is right.
    for (const expectation of this.byKey.get(key) ?? []) {
      if (!expectation.optional) {
        expectation.optional = true;
        expectation.note += `, maybe cancelled by input ${index}`;
      }
    }
  }
}
