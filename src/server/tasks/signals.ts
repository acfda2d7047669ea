import { isObject } from "../../jsonrpc/message.js";
import { BusSubscription } from "../cluster/bus-subscription.js";
import { type ClusterBus, instanceId } from "../cluster/cluster.js";
import type { ServerLogger } from "../core/options.js";

/** Bus channel prefix of the instance that runs a task: `mcp:task-owner:<instance id>`. */
export const TASK_OWNER_CHANNEL = "mcp:task-owner:";

/**
 * How long an owner must stay unreachable (0 receivers on its channel, seen twice at least this far apart)
 * before its tasks are failed. Covers a bus that reconnects its subscriptions after its commands.
 */
export const OWNER_GRACE_MS = 5_000;

/** Owners probed at most once per this interval by `tasks/get` polls. */
const PROBE_INTERVAL_MS = 1_000;
/** Owners tracked per instance; past it the tables are reset (instances are few; this only bounds memory). */
const MAX_TRACKED = 1_024;

/** What a signal learned of a task's owner. */
export type OwnerState = "alive" | "gone" | "unknown";

/**
 * The cluster side of a task engine: each instance listens on a channel of its own, so that an instance that
 * changes a task it does not run (an answer, a cancellation) can tell the one that does, and can tell from the
 * number of receivers whether that owner is still there.
 */
export class TaskSignals {
  private readonly id = instanceId();
  private readonly subscription: BusSubscription;
  private listening = false;
  private readonly suspects = new Map<string, number>();
  private readonly probed = new Map<string, number>();

  constructor(
    private readonly bus: ClusterBus,
    receive: (taskId: string) => void,
    private readonly logger: ServerLogger,
    private readonly now: () => number,
  ) {
    this.subscription = new BusSubscription(
      bus,
      TASK_OWNER_CHANNEL + this.id,
      (raw) => {
        const taskId = parseSignal(raw);
        if (taskId !== undefined) receive(taskId);
      },
      logger,
    );
    void this.subscription.joined.then(() => {
      this.listening = true;
    });
  }

  /** Resolves once this instance receives signals. */
  get joined(): Promise<void> {
    return this.subscription.joined;
  }

  /**
   * The owner to stamp on a task this instance starts: its id once it listens; `undefined` before (such a task
   * is never signalled nor failed as orphaned; its owner reads answers from the store on its poll).
   */
  get owner(): string | undefined {
    return this.listening ? this.id : undefined;
  }

  /** True for `owner` values of another instance. */
  isForeign(owner: string | undefined): owner is string {
    return owner !== undefined && owner !== this.id;
  }

  /** Tells `owner` that `taskId` changed; resolves to what that says of the owner. Never rejects. */
  async signal(owner: string, taskId: string): Promise<OwnerState> {
    let receivers: number;
    try {
      receivers = await this.bus.publish(TASK_OWNER_CHANNEL + owner, JSON.stringify({ taskId }));
    } catch (error) {
      this.logger.warn("could not signal the instance running a task", { taskId, error: String(error) });
      return "unknown";
    }
    return this.judge(owner, receivers);
  }

  /** Checks, at most once a second per owner, whether `owner` is there; `undefined` when not checked now. */
  async probe(owner: string): Promise<OwnerState | undefined> {
    const now = this.now();
    const last = this.probed.get(owner);
    if (last !== undefined && now - last < PROBE_INTERVAL_MS) return undefined;
    if (this.probed.size >= MAX_TRACKED) this.probed.clear();
    this.probed.set(owner, now);
    let receivers: number;
    try {
      receivers = await this.bus.publish(TASK_OWNER_CHANNEL + owner, "probe");
    } catch {
      return "unknown";
    }
    return this.judge(owner, receivers);
  }

  /** Leaves the bus. */
  async close(): Promise<void> {
    await this.subscription.close();
  }

  private judge(owner: string, receivers: number): OwnerState {
    if (receivers > 0) {
      this.suspects.delete(owner);
      return "alive";
    }
    const now = this.now();
    const since = this.suspects.get(owner);
    if (since === undefined) {
      if (this.suspects.size >= MAX_TRACKED) this.suspects.clear();
      this.suspects.set(owner, now);
      return "unknown";
    }
    return now - since >= OWNER_GRACE_MS ? "gone" : "unknown";
  }
}

function parseSignal(raw: string): string | undefined {
  if (raw === "probe") return undefined;
  try {
    const message: unknown = JSON.parse(raw);
    return isObject(message) && typeof message.taskId === "string" ? message.taskId : undefined;
  } catch {
    return undefined;
  }
}
