import { limitError } from "../../jsonrpc/limit-error.js";
import { invalidParams } from "../core/errors.js";
import type { ListFamily } from "../core/listen.js";
import type { PromptEntry, ResourceEntry, TemplateEntry, ToolEntry } from "./registrations.js";
import { invalid } from "./registrations.js";

/** Default of `maxRegistrations`: items one family (tools, prompts, resources, templates) may hold. */
export const DEFAULT_MAX_REGISTRATIONS = 10_000;

/** One registered item: its key (name, URI or URI template), its entry, its place in list order. */
export interface Slot<E> {
  readonly seq: number;
  key: string;
  entry: E;
  enabled: boolean;
  removed: boolean;
}

/**
 * The items of one family, in registration order, with keys kept unique. Lists and pages hold the enabled ones
 * only. Each item has a sequence number that never changes; a cursor (`o:N`) names the first number of the next
 * page, so paging stays consistent while items come and go (a removed item is skipped, a new one comes last).
 * Every change calls `changed`. Reads never see half a change: each change replaces what it touches at once.
 */
export class Table<E> {
  private readonly byKey = new Map<string, Slot<E>>();
  private ordered: Slot<E>[] | undefined;
  private nextSeq = 0;
  // Typed loosely so that a table of a narrower entry stays assignable to a table of a wider one.
  private check: ((key: string, entry: never) => void) | undefined;

  constructor(
    /** What an item is called in errors: "tool", "prompt", "resource", "resource template". */
    readonly kind: string,
    readonly limit: number,
    private readonly changed: () => void,
  ) {}

  /** Items registered now, enabled or not. */
  get size(): number {
    return this.byKey.size;
  }

  /**
   * Checks every item now and every item added or replaced later with `check` (which throws to refuse it): how a
   * server keeps its registrations apart from its extensions' resources.
   */
  guard(check: (key: string, entry: E) => void): void {
    for (const slot of this.byKey.values()) check(slot.key, slot.entry);
    this.check = check;
  }

  /** Adds an item. Throws `INVALID_CONFIG` for a taken key, `CAPACITY` past `limit`. */
  add(key: string, entry: E): Slot<E> {
    if (this.byKey.has(key)) throw invalid(`${this.kind} "${key}" is registered twice`);
    this.check?.(key, entry as never);
    if (this.byKey.size >= this.limit) {
      const facts = { option: "maxRegistrations", limit: this.limit, size: this.byKey.size + 1 };
      throw limitError("CAPACITY", `too many ${this.kind}s registered`, facts, {
        unit: `${this.kind}s`,
        extra: { kind: this.kind },
      });
    }
    const slot: Slot<E> = { seq: this.nextSeq++, key, entry, enabled: true, removed: false };
    this.byKey.set(key, slot);
    this.touch();
    return slot;
  }

  /** The item registered under `key`, enabled or not. */
  get(key: string): Slot<E> | undefined {
    return this.byKey.get(key);
  }

  /** The entry under `key` when it is enabled: what a call runs. */
  lookup(key: string): E | undefined {
    const slot = this.byKey.get(key);
    return slot?.enabled ? slot.entry : undefined;
  }

  /** Removes an item; false when it was already gone. */
  remove(slot: Slot<E>): boolean {
    if (slot.removed) return false;
    slot.removed = true;
    this.byKey.delete(slot.key);
    this.touch();
    return true;
  }

  /** Replaces an item's entry, and its key when it changes (kept unique: `INVALID_CONFIG`). */
  replace(slot: Slot<E>, key: string, entry: E): void {
    if (slot.removed) throw invalid(`${this.kind} "${slot.key}" was removed`);
    this.check?.(key, entry as never);
    if (key !== slot.key) {
      if (this.byKey.has(key)) throw invalid(`${this.kind} "${key}" is registered twice`);
      this.byKey.delete(slot.key);
      this.byKey.set(key, slot);
      slot.key = key;
    }
    slot.entry = entry;
    this.touch();
  }

  /** Shows or hides an item; a change only when the state changes. */
  setEnabled(slot: Slot<E>, enabled: boolean): void {
    if (slot.removed) throw invalid(`${this.kind} "${slot.key}" was removed`);
    if (slot.enabled === enabled) return;
    slot.enabled = enabled;
    this.touch();
  }

  /** The enabled items, in list order. */
  list(): readonly Slot<E>[] {
    this.ordered ??= [...this.byKey.values()].filter((s) => s.enabled).sort((x, y) => x.seq - y.seq);
    return this.ordered;
  }

  /** Every registered key, enabled or not, in list order. */
  keys(): string[] {
    return [...this.byKey.values()].sort((x, y) => x.seq - y.seq).map((s) => s.key);
  }

  /**
   * One page of enabled items from `cursor` (`o:N`: from sequence number N). A cursor this table never gave
   * (malformed, or past every number handed out) is `-32602`.
   */
  page(cursor: string | undefined, size: number): { items: Slot<E>[]; nextCursor?: string } {
    const list = this.list();
    const start = firstAtOrAfter(list, this.cursorSeq(cursor));
    const end = Math.min(list.length, start + size);
    const items = list.slice(start, end);
    const last = items.at(-1);
    return end < list.length && last !== undefined ? { items, nextCursor: `o:${last.seq + 1}` } : { items };
  }

  /** The sequence number an `o:N` cursor names; `-32602` for anything else. */
  cursorSeq(cursor: string | undefined): number {
    if (cursor === undefined) return 0;
    const match = /^o:(\d+)$/.exec(cursor);
    const seq = match ? Number(match[1]) : Number.NaN;
    if (!Number.isSafeInteger(seq) || seq > this.nextSeq) throw invalidParams("invalid cursor");
    return seq;
  }

  /** True when `seq` is a number this table could have handed out. */
  knows(seq: number): boolean {
    return seq <= this.nextSeq;
  }

  private touch(): void {
    this.ordered = undefined;
    this.changed();
  }
}

/** The index of the first slot whose sequence number is `seq` or more (slots sorted by it). */
export function firstAtOrAfter<E>(slots: readonly Slot<E>[], seq: number): number {
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((slots[mid] as Slot<E>).seq < seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Everything a builder registers, and a dynamic server changes at run time: one table per family, each
 * bounded by `limit`. A change to tools, prompts, or resources and templates tells `onChange` its family.
 */
export class Registry {
  readonly tools: Table<ToolEntry>;
  readonly prompts: Table<PromptEntry>;
  readonly resources: Table<ResourceEntry>;
  readonly templates: Table<TemplateEntry>;
  /** Told the family of every change (set by a dynamic server). */
  onChange: ((family: ListFamily) => void) | undefined;

  constructor(readonly limit: number) {
    this.tools = new Table("tool", limit, () => this.onChange?.("tools"));
    this.prompts = new Table("prompt", limit, () => this.onChange?.("prompts"));
    this.resources = new Table("resource", limit, () => this.onChange?.("resources"));
    this.templates = new Table("resource template", limit, () => this.onChange?.("resources"));
  }
}
