/**
 * Process-tree cleanup against real processes: a server starts grandchildren (one through util-linux
 * `setsid`, one detached by node, which calls setsid(), one ignoring SIGTERM), and whichever way the
 * connection ends, `/proc` shows no process carrying the launch's marker afterwards.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  alive,
  eventually,
  marked,
  openPeer,
  type RawPeer,
  rejectionOf,
  resultOf,
  scripted,
} from "../../test/fixtures/stdio/harness.js";
import type { McpkitError } from "../jsonrpc/errors.js";
import { launchWith } from "./launcher.js";
import { type ProcessOps, systemProcessOps } from "./process-tree.js";

const linux = process.platform === "linux";
const strays: number[] = [];
const open: RawPeer[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((p) => p.transport.close()));
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

type Tree = { plain: number; setsid: number; detached: number; stubborn: number };

/** Starts the grandchildren and waits until the setsid ones have left the root's process group. */
async function growTree(p: RawPeer): Promise<Tree> {
  const { pids } = resultOf(await p.request("spawnTree")) as { pids: Tree };
  const root = p.transport.pid as number;
  const pgrp = (pid: number) => systemProcessOps.stat(pid)?.pgrp;
  await eventually(() => pgrp(pids.setsid) === pids.setsid && pgrp(pids.detached) === pids.detached);
  expect(pgrp(pids.plain)).toBe(root);
  expect(pgrp(pids.stubborn)).toBe(root);
  // Every grandchild, and the detached shell's own child, carries the marker.
  await eventually(() => marked(p.transport.marker).length >= 6, 5_000, "six marked processes");
  expect(marked(p.transport.marker)).toEqual(expect.arrayContaining([root, ...Object.values(pids)]));
  return pids;
}

async function expectNothingLeft(p: RawPeer, tree: Tree): Promise<void> {
  await p.closed;
  for (const pid of [p.transport.pid as number, ...Object.values(tree)])
    expect(alive(pid), `pid ${pid}`).toBe(false);
  expect(marked(p.transport.marker)).toEqual([]);
  expect(p.transport.cleanupReport).toMatchObject({ sweep: "done", survivors: [], problems: [] });
  expect(p.transport.cleanupReport?.tracked).toBeGreaterThanOrEqual(5);
}

async function peer(flags: string[] = []): Promise<RawPeer> {
  const launched = await openPeer(scripted(flags, { policy: { shutdownTimeoutMs: 1_000 } }));
  open.push(launched);
  return launched;
}

describe.runIf(linux)("no marked process survives the end of a connection", () => {
  it("after close()", async () => {
    const p = await peer();
    const tree = await growTree(p);
    await p.transport.close();
    await expectNothingLeft(p, tree);
  });

  it("after a protocol violation", async () => {
    const p = await peer();
    const tree = await growTree(p);
    await p.fire("raw", { text: "this is not JSON-RPC\n" });
    expect((await p.closed).error).toMatchObject({ code: "PROTOCOL" });
    await expectNothingLeft(p, tree);
  });

  it("after the root exits on its own", async () => {
    const p = await peer();
    const tree = await growTree(p);
    await p.fire("exit", { code: 0 });
    expect(await p.closed).toMatchObject({ kind: "remote" });
    await expectNothingLeft(p, tree);
  });

  it("after the root is SIGKILLed from outside", async () => {
    const p = await peer();
    const tree = await growTree(p);
    process.kill(p.transport.pid as number, "SIGKILL");
    await expectNothingLeft(p, tree);
  });

  it("after close() of a root that ignores SIGTERM", async () => {
    const p = await peer(["--ignore-term", "--linger"]);
    const tree = await growTree(p);
    await p.transport.close();
    await expectNothingLeft(p, tree);
    expect(p.transport.cleanupReport?.groupSignals).toEqual(["SIGTERM", "SIGKILL"]);
  });
});

describe.runIf(linux)("the trust boundary: a descendant that drops the marker", () => {
  it("is still found by ancestry while its parent lives, so close() reaches it", async () => {
    const p = await peer();
    const { pids } = resultOf(await p.request("spawnTree", { unmarked: true })) as {
      pids: { unmarked: number };
    };
    strays.push(pids.unmarked);
    await eventually(() => systemProcessOps.stat(pids.unmarked)?.pgrp === pids.unmarked);
    expect(marked(p.transport.marker)).not.toContain(pids.unmarked);
    await p.transport.close();
    expect(alive(pids.unmarked)).toBe(false);
  });

  it("escapes once its parent has exited: untrusted commands need a cgroup or sandbox", async () => {
    const p = await peer();
    const { pids } = resultOf(await p.request("spawnTree", { unmarked: true })) as {
      pids: { unmarked: number };
    };
    strays.push(pids.unmarked);
    await eventually(() => systemProcessOps.stat(pids.unmarked)?.pgrp === pids.unmarked);
    await p.fire("exit", { code: 0 });
    await p.closed;
    expect(marked(p.transport.marker)).toEqual([]);
    expect(alive(pids.unmarked)).toBe(true);
  });
});

/** The real process table, except that signals to `refused` pids fail with EPERM (as for another user's). */
function refusing(refused: Set<number>): ProcessOps {
  return {
    ...systemProcessOps,
    kill(pid, signal) {
      if (refused.has(pid)) throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
      systemProcessOps.kill(pid, signal);
    },
  };
}

describe.runIf(linux)("a cleanup failure is reported", () => {
  it("when the root exits: pending requests fail with CLOSED carrying the close and cleanup reasons", async () => {
    const refused = new Set<number>();
    const p = await openPeer(scripted(), (options) => launchWith(options, refusing(refused)));
    open.push(p);
    const tree = await growTree(p);
    strays.push(tree.setsid);
    refused.add(tree.setsid);
    const pending = p.request("hang");
    await p.fire("exit", { code: 5 });
    const error = (await rejectionOf(pending)) as McpkitError;
    expect(error).toMatchObject({
      code: "CLOSED",
      message: expect.stringMatching(/cleanup failed: 1 process\(es\) still alive/),
      details: {
        exitCode: 5,
        closeReason: { kind: "remote", error: { code: "CLOSED", details: { exitCode: 5 } } },
        cleanupError: { code: "TRANSPORT" },
      },
    });
    const cleanupError = error.details?.cleanupError as McpkitError;
    expect(error.cause).toBe(cleanupError);
    expect(cleanupError.details?.report).toMatchObject({
      trigger: "exit",
      survivors: [tree.setsid],
      problems: expect.arrayContaining([`SIGKILL to ${tree.setsid}: EPERM`]),
    });
    // close() hands the same cleanup failure to its caller, every time.
    const closing = p.transport.close();
    expect(p.transport.close()).toBe(closing);
    await expect(closing).rejects.toBe(cleanupError);
    expect(p.transport.failure).toBe(error);
    expect(alive(tree.setsid)).toBe(true);
    expect(marked(p.transport.marker)).toEqual([tree.setsid]);
  });

  it("on close(): it rejects with TRANSPORT, and the close reason names the local close", async () => {
    const refused = new Set<number>();
    const p = await openPeer(scripted(), (options) => launchWith(options, refusing(refused)));
    open.push(p);
    const tree = await growTree(p);
    strays.push(tree.setsid);
    refused.add(tree.setsid);
    const error = (await rejectionOf(p.transport.close())) as McpkitError;
    expect(error).toMatchObject({
      code: "TRANSPORT",
      message: expect.stringMatching(/^stdio cleanup failed/),
      details: { report: { trigger: "close", survivors: [tree.setsid] } },
    });
    expect(await p.closed).toMatchObject({
      kind: "error",
      error: { code: "CLOSED", details: { closeReason: { kind: "local" }, cleanupError: error } },
    });
  });
});
