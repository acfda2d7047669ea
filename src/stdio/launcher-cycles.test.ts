/**
 * 200 launch/close cycles leave nothing behind: no process carrying any of the 200 markers, no child of this
 * process, no open file descriptor more than before. The child is `cat`, which echoes each frame back.
 */
import { describe, expect, it } from "vitest";
import { liveChildren, markedByAny, openFds } from "../../test/fixtures/stdio/harness.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import { launchStdio } from "./launcher.js";

const CYCLES = 200;

async function cycle(markers: Set<string>): Promise<void> {
  const transport = launchStdio({ command: "cat" });
  markers.add(transport.marker);
  let echoed: (message: JsonRpcMessage) => void = () => {};
  const echo = new Promise<JsonRpcMessage>((resolve) => {
    echoed = resolve;
  });
  await transport.start({ message: (message) => echoed(message), close: () => {} });
  await transport.send({ jsonrpc: "2.0", method: "ping", params: { marker: transport.marker } });
  expect(await echo).toEqual({ jsonrpc: "2.0", method: "ping", params: { marker: transport.marker } });
  await transport.close();
  expect(transport.cleanupReport?.survivors).toEqual([]);
}

describe.runIf(process.platform === "linux")("launch/close cycles", () => {
  it(`${CYCLES} cycles leave no process and no file descriptor behind`, { timeout: 60_000 }, async () => {
    // One cycle first, so that lazily opened descriptors (libuv's signal pipe for SIGCHLD) are in the baseline.
    await cycle(new Set());
    const fdsBefore = openFds();
    const childrenBefore = liveChildren();
    const markers = new Set<string>();
    const started = performance.now();
    for (let i = 0; i < CYCLES; i++) await cycle(markers);
    const elapsed = performance.now() - started;
    const fdsAfter = openFds();
    const figures = {
      cycles: CYCLES,
      ms: Math.round(elapsed),
      msPerCycle: Math.round((elapsed / CYCLES) * 10) / 10,
      fds: [fdsBefore, fdsAfter],
      children: [childrenBefore.length, liveChildren().length],
      marked: markedByAny(markers).length,
    };
    console.info(`stdio cleanup figures: ${JSON.stringify(figures)}`);
    expect(markers.size).toBe(CYCLES);
    expect(fdsAfter).toBeLessThanOrEqual(fdsBefore);
    expect(liveChildren()).toEqual(childrenBefore);
    expect(markedByAny(markers)).toEqual([]);
  });
});
