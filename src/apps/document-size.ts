import type { SizeSource } from "./app-view.js";

interface ElementLike {
  readonly scrollWidth: number;
  readonly scrollHeight: number;
}
interface BrowserGlobals {
  document?: { documentElement: ElementLike };
  ResizeObserver?: new (callback: () => void) => { observe(target: unknown): void; disconnect(): void };
}

/**
 * The document's size, observed with `ResizeObserver`: the `autoResize` source of a view running in a browser.
 * Outside a browser `measure()` answers 0×0 and nothing is observed.
 *
 * @example
 * new AppView({ endpoint, appInfo, autoResize: documentSize() });
 */
export function documentSize(): SizeSource {
  const g = globalThis as unknown as BrowserGlobals;
  return {
    measure() {
      const root = g.document?.documentElement;
      return { width: root?.scrollWidth ?? 0, height: root?.scrollHeight ?? 0 };
    },
    observe(changed) {
      const root = g.document?.documentElement;
      if (g.ResizeObserver === undefined || root === undefined) return () => {};
      const observer = new g.ResizeObserver(changed);
      observer.observe(root);
      return () => observer.disconnect();
    },
  };
}
