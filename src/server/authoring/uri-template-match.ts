import type { TemplateExpression, TemplatePart } from "./uri-template-parse.js";

/**
 * Live sets of up to 65,536 words (states / 32 × characters) use one buffer that every matcher shares (matching
 * is synchronous and typed arrays are slow to create); a longer URI gets its own.
 */
const REUSED_WORDS = 65_536;
const scratch = new Uint32Array(REUSED_WORDS);

/** `readsWide` of a class state: it reads every code unit from 128 up. */
const WIDE_ANY = -1;
const EMPTY = new Uint32Array(0);

const CHAR = 0;
const CLASS = 1;
const SPLIT = 2;
const JMP = 3;
const SAVE = 4;
const MATCH = 5;

/**
 * The matching engine of {@link UriTemplate}: the template compiled to a tiny regular program (literal
 * characters, one character class per expression, greedy or lazy loops, optional expressions), run in two
 * passes over the URI. The first goes backwards and records, at each position, the set of program states from
 * which the rest of the URI can still match (a bit set per position). The second walks forwards and, at each
 * choice, takes the branch a backtracking regular expression would try first if that branch can still match.
 * The result is the one backtracking finds (leftmost priority), at a cost of `uri.length × states / 32` word
 * operations: nothing is ever retried, whatever the URI.
 *
 * How each expression matches (the rules the table in docs/tools.md states):
 * - `{var}` and `{+var}` need one character at least; `{.x}`, `{/x}`, `{;x}`, `{?x}`, `{&x}`, `{#x}` are
 *   optional: absent, or their first character and what follows it;
 * - an expression takes as much as it can (greedy), unless an optional expression follows it directly: then it
 *   takes as little as it can (lazy), so `{name}{.ext}` gives `ext` the last extension;
 * - the characters an expression may hold are those its expansion can produce, leniently: simple, `.` and `;`
 *   values hold no `/`, `?` or `#`; `/` holds no `?` or `#`; a query (`?`, `&`) holds no `#`; `{.x}` and `{/x}`
 *   with one plain variable hold no `.` and `/` respectively; `{+x}` and `{#x}` hold anything, except a `?` or
 *   `#` that a later part of the template produces (a query or fragment starts there).
 */
export class TemplateMatcher {
  private readonly ops: number[] = [];
  private readonly a: number[] = [];
  private readonly b: number[] = [];
  /** Per class: 1 at each ASCII code the class excludes (code units 128 and above are always allowed). */
  private readonly classes: Uint8Array[] = [];
  /** Capture slots: two per expression. */
  readonly slots: number;
  /** The literal text the template starts and ends with: checked first, so most misses cost no pass. */
  private readonly head: string;
  private readonly tail: string;
  /** The instructions that read a character (the states), and each instruction's state index (or -1). */
  private readonly states: number[] = [];
  private readonly stateOf: number[];
  /** Words per state set. */
  private readonly words: number;
  /** Per instruction: the states it reaches without reading (`words` words each), and whether it reaches the end. */
  private readonly reach: Uint32Array;
  private readonly reachesEnd: boolean[];
  /**
   * Per state: what it reads (1 per ASCII code; above, the one code unit it reads or `WIDE_ANY`), the states
   * it moves to after reading, and whether the end of the program is reachable from there.
   */
  private readonly readsAscii: Uint8Array;
  private readonly readsWide: Int32Array;
  private readonly after: Uint32Array;
  private readonly endAfter: Uint8Array;

  constructor(parts: readonly TemplatePart[]) {
    this.head = typeof parts[0] === "string" ? parts[0] : "";
    const last = parts.at(-1);
    this.tail = parts.length > 1 && typeof last === "string" ? last : "";
    let expression = 0;
    parts.forEach((part, i) => {
      if (typeof part !== "string") {
        this.compileExpression(part, expression++, excludedChars(parts, i), lazyAt(parts, i));
      } else if (i > 0) {
        for (let j = 0; j < part.length; j++) this.emit(CHAR, part.charCodeAt(j));
      }
    });
    this.emit(MATCH);
    this.slots = expression * 2;
    this.stateOf = this.ops.map((op) => (op === CHAR || op === CLASS ? this.states.push(0) - 1 : -1));
    this.ops.forEach((_op, pc) => {
      if (this.stateOf[pc] !== -1) this.states[this.stateOf[pc] as number] = pc;
    });
    this.words = Math.max(1, Math.ceil(this.states.length / 32));
    this.reach = new Uint32Array(this.ops.length * this.words);
    this.reachesEnd = this.ops.map(() => false);
    for (let pc = 0; pc < this.ops.length; pc++) this.close(pc);
    const count = this.states.length;
    this.readsAscii = new Uint8Array(count * 128);
    this.readsWide = new Int32Array(count);
    this.after = new Uint32Array(count * this.words);
    this.endAfter = new Uint8Array(count);
    this.states.forEach((pc, s) => {
      const isChar = this.ops[pc] === CHAR;
      const arg = this.a[pc] as number;
      for (let code = 0; code < 128; code++) {
        const reads = isChar ? code === arg : (this.classes[arg] as Uint8Array)[code] === 0;
        this.readsAscii[s * 128 + code] = reads ? 1 : 0;
      }
      this.readsWide[s] = isChar ? arg : WIDE_ANY;
      this.after.set(this.reach.subarray((pc + 1) * this.words, (pc + 2) * this.words), s * this.words);
      this.endAfter[s] = this.reachesEnd[pc + 1] ? 1 : 0;
    });
  }

  /**
   * The span of each expression in `uri` (`[start, end)` of its text after its first character, at slots `2k`
   * and `2k + 1`; `-1` for an absent optional expression), or `undefined` when `uri` does not match.
   */
  match(uri: string): number[] | undefined {
    const n = uri.length;
    const from = this.head.length;
    if (n < from + this.tail.length || !uri.startsWith(this.head) || !uri.endsWith(this.tail))
      return undefined;
    const live = n === from ? EMPTY : this.backward(uri, from);
    if (live === undefined) return undefined;
    const { reach, reachesEnd, words } = this;
    const viable =
      words === 1
        ? (pc: number, i: number) =>
            i === n ? reachesEnd[pc] === true : ((reach[pc] as number) & (live[i - from] as number)) !== 0
        : (pc: number, i: number) =>
            i === n ? reachesEnd[pc] === true : this.meets(pc, live, (i - from) * words);
    if (!viable(0, from)) return undefined;
    const caps = new Array<number>(this.slots).fill(-1);
    let pc = 0;
    let i = from;
    for (;;) {
      const op = this.ops[pc];
      if (op === MATCH) return caps;
      if (op === JMP) pc = this.a[pc] as number;
      else if (op === SPLIT)
        pc = viable(this.a[pc] as number, i) ? (this.a[pc] as number) : (this.b[pc] as number);
      else if (op === SAVE) caps[this.a[pc++] as number] = i;
      else {
        i++;
        pc++;
      }
    }
  }

  /**
   * The live sets, from the last character back: at position `i`, the states that read `uri[i]` and from
   * which the rest of the URI matches. Word `w` of position `i` is at `(i - from) * words + w`. `undefined` as
   * soon as one set is empty: no earlier position can then match either.
   */
  private backward(uri: string, from: number): Uint32Array | undefined {
    const { words, after, endAfter, readsAscii, readsWide } = this;
    const count = this.states.length;
    const n = uri.length;
    const size = (n - from) * words;
    // Typed arrays are slow to create: small ones reuse one buffer (matching is synchronous).
    // Every position is written before it is read: the shared buffer needs no clearing.
    const live = size > REUSED_WORDS ? new Uint32Array(size) : scratch;
    const reads = (s: number, code: number) =>
      code < 128 ? readsAscii[s * 128 + code] === 1 : readsWide[s] === WIDE_ANY || readsWide[s] === code;
    if (words === 1) {
      // The common case (32 states at most): each set is one integer.
      let next = 0;
      for (let i = n - 1; i >= from; i--) {
        const code = uri.charCodeAt(i);
        let set = 0;
        for (let s = 0; s < count; s++) {
          if (!reads(s, code)) continue;
          if (i === n - 1 ? endAfter[s] === 1 : ((after[s] as number) & next) !== 0) set |= 1 << s;
        }
        if (set === 0) return undefined;
        live[i - from] = set;
        next = set;
      }
      return live;
    }
    for (let i = n - 1; i >= from; i--) {
      const code = uri.charCodeAt(i);
      const base = (i - from) * words;
      const next = base + words;
      live.fill(0, base, next);
      let any = 0;
      for (let s = 0; s < count; s++) {
        if (!reads(s, code)) continue;
        let ok = i === n - 1 && endAfter[s] === 1;
        for (let w = 0; w < words && !ok && i < n - 1; w++) {
          ok = ((after[s * words + w] as number) & (live[next + w] as number)) !== 0;
        }
        if (ok) {
          live[base + (s >>> 5)] = (live[base + (s >>> 5)] as number) | (1 << (s & 31));
          any = 1;
        }
      }
      if (any === 0) return undefined;
    }
    return live;
  }

  /** True when an instruction reaches, without reading, a state of the live set at `base`. */
  private meets(pc: number, live: Uint32Array, base: number): boolean {
    for (let w = 0; w < this.words; w++) {
      if (((this.reach[pc * this.words + w] as number) & (live[base + w] as number)) !== 0) return true;
    }
    return false;
  }

  /** Fills `reach` and `reachesEnd` of `start`: a walk over the moves that read nothing (the program is small). */
  private close(start: number): void {
    const seen = new Set<number>();
    const stack = [start];
    for (let pc = stack.pop(); pc !== undefined; pc = stack.pop()) {
      if (seen.has(pc)) continue;
      seen.add(pc);
      const op = this.ops[pc];
      if (op === MATCH) this.reachesEnd[start] = true;
      else if (op === CHAR || op === CLASS) {
        const s = this.stateOf[pc] as number;
        const at = start * this.words + (s >>> 5);
        this.reach[at] = (this.reach[at] as number) | (1 << (s & 31));
      } else if (op === SPLIT) stack.push(this.a[pc] as number, this.b[pc] as number);
      else if (op === JMP) stack.push(this.a[pc] as number);
      else stack.push(pc + 1);
    }
  }

  private compileExpression(
    expression: TemplateExpression,
    k: number,
    excluded: string,
    lazy: boolean,
  ): void {
    const cls = new Uint8Array(128);
    for (let j = 0; j < excluded.length; j++) cls[excluded.charCodeAt(j)] = 1;
    this.classes.push(cls);
    const classId = this.classes.length - 1;
    const first = FIRST[expression.operator];
    if (first === "") {
      // One character at least: CLASS, then loop back (greedy) or move on (lazy).
      this.emit(SAVE, 2 * k);
      const loop = this.emit(CLASS, classId);
      const split = this.emit(SPLIT);
      this.patch(split, lazy ? split + 1 : loop, lazy ? loop : split + 1);
      this.emit(SAVE, 2 * k + 1);
      return;
    }
    const optional = this.emit(SPLIT);
    this.emit(CHAR, first.charCodeAt(0));
    this.emit(SAVE, 2 * k);
    const loop = this.emit(SPLIT);
    const body = this.emit(CLASS, classId);
    this.emit(JMP, loop);
    const end = this.emit(SAVE, 2 * k + 1);
    this.patch(loop, lazy ? end : body, lazy ? body : end);
    this.patch(optional, optional + 1, end + 1);
  }

  private emit(op: number, a = 0, b = 0): number {
    this.ops.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.ops.length - 1;
  }

  private patch(pc: number, a: number, b: number): void {
    this.a[pc] = a;
    this.b[pc] = b;
  }
}

/** The character an operator's expansion starts with (none for simple and reserved expansion). */
const FIRST = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" } as const;

/** The characters the expression at `parts[i]` may not hold (see {@link TemplateMatcher}). */
function excludedChars(parts: readonly TemplatePart[], i: number): string {
  const expression = parts[i] as TemplateExpression;
  const single = expression.variables.length === 1 && !expression.variables[0]?.explode;
  switch (expression.operator) {
    case "":
    case ";":
      return "/?#";
    case ".":
      return single ? "/?#." : "/?#";
    case "/":
      return single ? "/?#" : "?#";
    case "?":
    case "&":
      return "#";
    default: {
      const later = parts.slice(i + 1);
      const produces = (c: string) =>
        later.some((p) => (typeof p === "string" ? p.includes(c) : FIRST[p.operator] === c));
      return `${produces("?") ? "?" : ""}${produces("#") ? "#" : ""}`;
    }
  }
}

/** True when the part after `parts[i]` is an optional expression: then `parts[i]` matches lazily. */
function lazyAt(parts: readonly TemplatePart[], i: number): boolean {
  const after = parts[i + 1];
  return after !== undefined && typeof after !== "string" && FIRST[after.operator] !== "";
}
