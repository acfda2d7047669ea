/**
 * Matches what a server sends back against the oracle's expectations: by id, answers without id in order, and
 * subscription acknowledgements by the subscription id they name. Several requests may share an id (a request
 * reusing an id in flight is refused as a duplicate, with that id): the answers of one id are matched to its
 * expectations as a bipartite matching, so the order in which they come does not matter. An answer that fits no
 * expectation is a mismatch (when one of that id still waits) or extra.
 */
import { idKey } from "./oracle-core.mjs";

const ACK = "notifications/subscriptions/acknowledged";
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** The class of an answer (see oracle-core.mjs) and the key it names; `undefined` class for a non-answer. */
export function answerOf(message) {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return { cls: undefined };
  if (message.method === ACK) {
    const id = message.params?._meta?.[SUBSCRIPTION_ID];
    return { cls: "ack", key: id === undefined ? null : idKey(id) };
  }
  if ("method" in message) return { cls: undefined };
  const key = "id" in message ? idKey(message.id) : null;
  if ("result" in message) return { cls: message.result?.isError === true ? "tool-error" : "ok", key };
  const error = message.error;
  if (error?.code === -32603 && error.data?.reason === "response_too_large") return { cls: "too-large", key };
  return { cls: `e${error?.code}`, key };
}

/** The expectations of one id and the answers it got, matched. */
class Group {
  constructor() {
    this.expectations = [];
    this.answers = [];
    /** `match[i]`: the expectation index answer i is matched to. */
    this.match = [];
  }

  /** Adds an answer; false when no matching covers every answer with it (it is then dropped). */
  add(cls) {
    this.answers.push(cls);
    if (this.rematch()) return true;
    this.answers.pop();
    this.rematch();
    return false;
  }

  /** Removes an expectation no answer is matched to. */
  remove(expectation) {
    this.expectations.splice(this.expectations.indexOf(expectation), 1);
    this.rematch();
  }

  /** Finds a matching of every answer to a distinct expectation that allows its class (Kuhn's algorithm). */
  rematch() {
    const owner = new Array(this.expectations.length).fill(-1);
    const match = [];
    const order = this.order();
    const tryAnswer = (a, seen) => {
      for (const e of order) {
        if (seen[e] || !this.expectations[e].classes.includes(this.answers[a])) continue;
        seen[e] = true;
        if (owner[e] < 0 || tryAnswer(owner[e], seen)) {
          owner[e] = a;
          match[a] = e;
          return true;
        }
      }
      return false;
    };
    for (let a = 0; a < this.answers.length; a++) {
      if (!tryAnswer(a, new Array(this.expectations.length).fill(false))) return false;
    }
    this.match = match;
    return true;
  }

  /** Waiting (non-optional) expectations first, so that optional ones take what is left. */
  order() {
    const indexes = this.expectations.map((_, i) => i);
    return indexes.sort(
      (a, b) => Number(this.expectations[a].optional) - Number(this.expectations[b].optional),
    );
  }

  /** Expectations no answer is matched to. */
  unmatched() {
    const taken = new Set(this.match);
    return this.expectations.filter((_, i) => !taken.has(i));
  }
}

export class AnswerBook {
  constructor() {
    this.groups = new Map();
    this.anonymous = [];
    this.listeners = new Set();
    this.lastActivity = Date.now();
  }

  expect(expectation) {
    if (expectation.key === null) return this.anonymous.push(expectation);
    let group = this.groups.get(expectation.key);
    if (!group) {
      group = new Group();
      this.groups.set(expectation.key, group);
    }
    group.expectations.push(expectation);
  }

  /** True while the expectation has no answer. */
  waiting(expectation) {
    if (expectation.key === null) return this.anonymous.includes(expectation);
    const group = this.groups.get(expectation.key);
    return group?.unmatched().includes(expectation) ?? false;
  }

  /** Expectations still waiting for their answer (optional ones do not count). */
  get outstanding() {
    let n = this.anonymous.length;
    for (const group of this.groups.values()) {
      for (const expectation of group.unmatched()) if (!expectation.optional) n++;
    }
    return n;
  }

  /** Matches one answer. Returns `{ outcome: "match" | "mismatch" | "extra", expectation? }`. */
  receive(cls, key) {
    this.lastActivity = Date.now();
    try {
      if (key === null) {
        const index = this.anonymous.findIndex((candidate) => candidate.classes.includes(cls));
        if (index >= 0) return { outcome: "match", expectation: this.anonymous.splice(index, 1)[0] };
        // An answer whose id would not fit the bound comes without it.
        for (const group of this.groups.values()) {
          const lost = group.unmatched().find((e) => e.anonymousOk && e.classes.includes(cls));
          if (!lost) continue;
          group.remove(lost);
          if (group.expectations.length === 0) this.groups.delete(lost.key);
          return { outcome: "match", expectation: lost };
        }
        const first = this.anonymous.shift();
        return { outcome: first ? "mismatch" : "extra", expectation: first };
      }
      const group = this.groups.get(key);
      if (!group) return { outcome: "extra" };
      if (group.add(cls)) {
        if (group.unmatched().length === 0) this.groups.delete(key);
        return { outcome: "match" };
      }
      const waiting = group.unmatched().find((expectation) => !expectation.optional);
      if (!waiting) return { outcome: "extra", expectation: group.expectations[0] };
      // Counted as answered (wrongly), so that it is not reported missing as well.
      group.remove(waiting);
      return { outcome: "mismatch", expectation: waiting };
    } finally {
      this.wake();
    }
  }

  /** Unanswered expectations, removed from the book. */
  takeUnanswered() {
    const left = [...this.anonymous];
    for (const group of this.groups.values()) left.push(...group.unmatched().filter((e) => !e.optional));
    this.anonymous = [];
    this.groups.clear();
    return left;
  }

  wake() {
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * Resolves true once `done()` holds, false when nothing arrived for `idleMs` (or `alive()` turned false).
   */
  waitUntil(done, idleMs, alive) {
    const started = Date.now();
    return new Promise((resolve) => {
      const check = () => {
        if (done()) finish(true);
        else if (!alive() || Date.now() - Math.max(started, this.lastActivity) > idleMs) finish(false);
      };
      const timer = setInterval(check, 20);
      const finish = (value) => {
        clearInterval(timer);
        this.listeners.delete(check);
        resolve(value);
      };
      this.listeners.add(check);
      check();
    });
  }
}
