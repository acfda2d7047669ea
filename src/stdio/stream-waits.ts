import type { Readable, Writable } from "node:stream";

/**
 * Resolves once `stream` drains; when it closes first, or `stop` fires, resolves with `refused()` instead (a
 * rejection that says why the write cannot go on).
 */
export function drained(stream: Writable, stop: AbortSignal, refused: () => Promise<never>): Promise<void> {
  return new Promise((resolve) => {
    const settle = (outcome?: Promise<never>) => {
      stream.off("drain", onDrain);
      stream.off("close", onClose);
      stop.removeEventListener("abort", onClose);
      resolve(outcome);
    };
    const onDrain = () => settle();
    const onClose = () => settle(refused());
    stream.on("drain", onDrain);
    stream.on("close", onClose);
    stop.addEventListener("abort", onClose);
    if (stop.aborted) onClose();
  });
}

/** Resolves once `stream` has closed (at once when there is none, or it already has). */
export function closedStream(stream: Readable | null | undefined): Promise<void> {
  if (!stream || stream.destroyed || stream.closed) return Promise.resolve();
  return new Promise((resolve) => stream.once("close", () => resolve()));
}
