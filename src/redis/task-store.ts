import type { createClient } from "redis";
import { McpkitError } from "../jsonrpc/errors.js";
import type { TaskCapRefusal, TaskRecord, TaskStore } from "../server/index.js";

type Commands = ReturnType<typeof createClient>;
/** Runs one Redis call, bounded in time; a failure rejects with the cluster's `UNAVAILABLE` error. */
export type BoundedCall = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

/** Optimistic updates retried at most this many times when other instances keep changing the same task. */
const MAX_UPDATE_ATTEMPTS = 32;

// KEYS: task, all tasks (zset), the principal's tasks (zset). ARGV: record, id, expiresAt, now, ttlMs, caps.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[4])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then return 'global_cap' end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'principal_cap' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[3], ARGV[5]) end
return 'ok'
`;

// KEYS: task. ARGV: the value read, the value to write. Writes only over what was read.
const SWAP = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`;

/**
 * The {@link TaskStore} of a Redis cluster: each task one JSON value that expires with the task, and per
 * principal (and for the caps, all tasks) a sorted set of ids by expiry. `create` checks the caps and inserts
 * in one script; `update` is optimistic (read, change, write only over what was read, retried). Time is read
 * from this process's clock: keep the instances' clocks in sync.
 */
export function redisTaskStore(commands: Commands, bounded: BoundedCall, prefix: string): TaskStore {
  const taskKey = (taskId: string) => `${prefix}task:${taskId}`;
  const allKey = `${prefix}tasks:all`;
  const principalKey = (principal: string) => `${prefix}tasks:p:${principal}`;
  const read = (raw: string | null | undefined): TaskRecord | undefined => {
    if (typeof raw !== "string") return undefined;
    const record = JSON.parse(raw) as TaskRecord;
    return Date.now() < record.createdAt + record.ttlMs ? record : undefined;
  };
  return {
    create: (record, caps) =>
      bounded("task create", async () => {
        const now = Date.now();
        const expiresAt = record.createdAt + record.ttlMs;
        const answer = await commands.eval(CREATE, {
          keys: [taskKey(record.taskId), allKey, principalKey(record.principal)],
          arguments: [
            JSON.stringify(record),
            record.taskId,
            String(expiresAt),
            String(now),
            String(Math.max(1, expiresAt - now)),
            String(caps.perPrincipal),
            String(caps.total),
          ],
        });
        return answer === "ok" ? undefined : (answer as TaskCapRefusal);
      }),
    get: (taskId) => bounded("task get", async () => read(await commands.get(taskKey(taskId)))),
    update: (taskId, change) =>
      bounded("task update", async () => {
        for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
          const raw = await commands.get(taskKey(taskId));
          const record = read(raw);
          if (record === undefined) return undefined;
          const next = change(record);
          if (next === undefined) return record;
          const swapped = await commands.eval(SWAP, {
            keys: [taskKey(taskId)],
            arguments: [raw as string, JSON.stringify(next)],
          });
          if (swapped === 1) return next;
        }
        throw new McpkitError("UNAVAILABLE", `task ${taskId} changed too often to update`, {
          details: { reason: "contended", taskId },
        });
      }),
    list: (principal) =>
      bounded("task list", async () => {
        const key = principalKey(principal);
        await commands.zRemRangeByScore(key, "-inf", Date.now());
        const ids = await commands.zRange(key, 0, -1);
        if (ids.length === 0) return [];
        const values = await commands.mGet(ids.map(taskKey));
        const records: TaskRecord[] = [];
        for (const raw of values) {
          const record = read(raw);
          if (record?.principal === principal) records.push(record);
        }
        return records.sort((a, b) => a.createdAt - b.createdAt);
      }),
  };
}
