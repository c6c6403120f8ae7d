import fs from 'node:fs';
import os from 'node:os';
import type { Storage } from './database.ts';
import { newId, nowIso } from './ids.ts';

/** How often a live server process refreshes its `heartbeat_at`. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
/** A process whose heartbeat is older than this is taken for dead, wherever it ran. */
export const INSTANCE_TIMEOUT_MS = 60_000;

export interface ServerInstance {
  id: string;
  host: string;
  pid: number;
}

/**
 * This machine's host name with its PID namespace (Linux), so that "is this PID running?" is only
 * asked of processes this one can see: two containers may share a host name but never a namespace.
 */
function hostIdentity(): string {
  let namespace = '';
  try {
    namespace = fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    // Not Linux: the host name alone; a dead process is then found by its heartbeat only.
    return os.hostname();
  }
  return `${os.hostname()}/${namespace}`;
}

function canCheckPids(host: string): boolean {
  return host.includes('/');
}

function pidIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: running, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Records this process as a live server instance. */
export async function registerInstance(storage: Storage): Promise<ServerInstance> {
  const now = nowIso();
  const instance = { id: newId('ins'), host: hostIdentity(), pid: process.pid };
  await storage.db
    .insertInto('server_instances')
    .values({ ...instance, started_at: now, heartbeat_at: now })
    .execute();
  return instance;
}

/**
 * Refreshes `instance`'s heartbeat, registering it again when its row is gone: a process stalled past
 * `INSTANCE_TIMEOUT_MS` (stopped, a paused VM, cut off from its database) is taken for dead by another,
 * which deletes its row; without one, every answer and ingestion of this live process looked orphaned
 * and was settled (refunded, marked failed) under it by each later sweep, its own included. Returns
 * whether the row had to be written again.
 */
export async function heartbeat(storage: Storage, instance: ServerInstance): Promise<boolean> {
  const now = nowIso();
  const updated = await storage.db
    .updateTable('server_instances')
    .set({ heartbeat_at: now })
    .where('id', '=', instance.id)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return false;
  await storage.db
    .insertInto('server_instances')
    .values({ id: instance.id, host: instance.host, pid: instance.pid, started_at: now, heartbeat_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return true;
}

export async function removeInstance(storage: Storage, instanceId: string): Promise<void> {
  await storage.db.deleteFrom('server_instances').where('id', '=', instanceId).execute();
}

/**
 * Instances other than `self` that are gone: on this host (same PID namespace) when their process is
 * not running, anywhere when their heartbeat is older than `timeoutMs`.
 */
export async function deadInstances(
  storage: Storage,
  self: ServerInstance,
  options: { now?: Date; timeoutMs?: number } = {},
): Promise<string[]> {
  const now = options.now ?? new Date();
  const stale = new Date(now.getTime() - (options.timeoutMs ?? INSTANCE_TIMEOUT_MS)).toISOString();
  const rows = await storage.db
    .selectFrom('server_instances')
    .select(['id', 'host', 'pid', 'heartbeat_at'])
    .where('id', '!=', self.id)
    .execute();
  return rows
    .filter(
      (row) =>
        row.heartbeat_at < stale ||
        (row.host === self.host &&
          canCheckPids(row.host) &&
          // Our own PID on an older row: that process is gone, and this one took its number.
          (Number(row.pid) === self.pid || !pidIsRunning(Number(row.pid)))),
    )
    .map((row) => row.id);
}
