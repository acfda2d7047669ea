/**
 * What a fuzz run counts: inputs, answers by class, lines that needed none, the generator's input kinds, and the
 * failures (crash, hang, lost, extra, mismatch, corrupt output, output over its bound), each with what it
 * takes to reproduce it.
 */

/** Failures kept in full, per kind (all are counted). */
const KEPT_PER_KIND = 10;

export class Tally {
  constructor(transport, seed) {
    this.transport = transport;
    this.seed = seed;
    this.runs = 0;
    this.inputs = 0;
    this.answers = {};
    this.noAnswer = {};
    this.kinds = {};
    this.failureCounts = { crash: 0, hang: 0, lost: 0, extra: 0, mismatch: 0, corrupt: 0, "over-limit": 0 };
    this.failures = [];
    this.serverLogs = {};
    this.ms = 0;
  }

  add(map, key, n = 1) {
    this[map][key] = (this[map][key] ?? 0) + n;
  }

  /** Records a failure; `detail` names the run and input index (with the seed, enough to replay it). */
  fail(kind, detail) {
    this.failureCounts[kind] = (this.failureCounts[kind] ?? 0) + 1;
    if (this.failureCounts[kind] <= KEPT_PER_KIND) this.failures.push({ kind, ...detail });
  }

  mergeLogs(counts) {
    for (const [message, n] of Object.entries(counts)) this.add("serverLogs", message, n);
  }

  get failed() {
    return Object.values(this.failureCounts).some((n) => n > 0);
  }

  summary() {
    return {
      transport: this.transport,
      seed: this.seed,
      runs: this.runs,
      inputs: this.inputs,
      seconds: Math.round(this.ms / 100) / 10,
      ...this.failureCounts,
      answers: sorted(this.answers),
      noAnswer: sorted(this.noAnswer),
      inputKinds: sorted(this.kinds),
      serverLogs: sorted(this.serverLogs),
      failures: this.failures,
    };
  }
}

/** `[key, count]` pairs, most frequent first (an array: keys like "200" would reorder an object). */
function sorted(map) {
  return Object.entries(map).sort(([, a], [, b]) => b - a);
}
