/**
 * The fuzz suite's only source of randomness: mulberry32, a 32-bit generator, seeded per run from the suite's
 * seed, so that `--seed N` replays every input byte for byte. No dependency, no `Math.random`.
 */

/** Mixes integers into one 32-bit seed (a run's seed from the suite seed, the transport and the run number). */
export function mixSeed(...parts) {
  let h = 0x9e3779b9;
  for (const part of parts) {
    const text = String(part);
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 0x85ebca6b);
      h ^= h >>> 13;
    }
    h = Math.imul(h ^ 0x2f, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A seeded generator with the helpers the generators need. */
export class Rng {
  constructor(seed) {
    this.state = seed >>> 0;
  }

  /** The next 32-bit unsigned integer (mulberry32). */
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  float() {
    return this.next() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n) {
    return n <= 0 ? 0 : Math.floor(this.float() * n);
  }

  /** An integer in [low, high]. */
  range(low, high) {
    return low + this.int(high - low + 1);
  }

  /** True with probability `p`. */
  chance(p) {
    return this.float() < p;
  }

  /** One element of a non-empty array. */
  pick(items) {
    return items[this.int(items.length)];
  }

  /** One key of `{ key: weight }`, with probability proportional to its weight. */
  weighted(weights) {
    const entries = Object.entries(weights);
    let total = 0;
    for (const [, weight] of entries) total += weight;
    let roll = this.float() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return entries[entries.length - 1][0];
  }

  /** `n` random bytes. */
  bytes(n) {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.next() & 0xff;
    return out;
  }

  /** A short string of printable ASCII (and sometimes a few non-ASCII characters). */
  word(max = 12) {
    const length = this.range(1, max);
    let text = "";
    for (let i = 0; i < length; i++) {
      text += this.chance(0.05)
        ? this.pick(["é", "✓", "ß", "漢", "😀", "\u0000", "\n", '"', "\\"])
        : String.fromCharCode(this.range(0x61, 0x7a));
    }
    return text;
  }
}
