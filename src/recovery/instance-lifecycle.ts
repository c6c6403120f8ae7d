import type { Logger } from 'pino';
import { recoverInterruptedAnswers } from '../assistant/recover-interrupted-answers.ts';
import { recoverInterruptedIngestions } from '../ingest/recover-interrupted-ingestions.ts';
import type { Storage } from '../storage/database.ts';
import { logJobFailure, type OutageLog } from '../storage/outage-log.ts';
import {
  deadInstances,
  HEARTBEAT_INTERVAL_MS,
  heartbeat,
  INSTANCE_TIMEOUT_MS,
  registerInstance,
  removeInstance,
  type ServerInstance,
} from '../storage/server-instances.ts';

/** How often a live instance looks for dead ones and settles what they left. */
export const RECOVERY_INTERVAL_MS = 30_000;

export interface InstanceLifecycle {
  instance: ServerInstance;
  /** Looks for dead instances now and settles their work (also run at start and on a timer). */
  recover(): Promise<void>;
  /** Stops the timers and removes this instance's row: call once its answers and ingestions are done. */
  stop(): Promise<void>;
}

export interface InstanceLifecycleOptions {
  heartbeatMs?: number;
  recoveryMs?: number;
  /** How old a heartbeat makes an instance on another host dead. */
  timeoutMs?: number;
  /** Where a lost database is told (once per outage); absent: each failure is logged with its stack. */
  outage?: OutageLog;
}

/**
 * Registers this process as a server instance, keeps its heartbeat, and settles the work of instances
 * that died without cleaning up (their answers refunded, their ingestion jobs marked failed): at start (a restart after a crash settles the crashed process's
 * answers at once, since its PID is gone) and every `recoveryMs`. Timers never keep the process alive.
 */
export async function startInstanceLifecycle(
  storage: Storage,
  logger: Logger,
  options: InstanceLifecycleOptions = {},
): Promise<InstanceLifecycle> {
  const instance = await registerInstance(storage);
  const timeoutMs = options.timeoutMs ?? INSTANCE_TIMEOUT_MS;
  let running: Promise<void> | undefined;

  const beatOnce = async (): Promise<void> => {
    if (await heartbeat(storage, instance))
      logger.warn(
        { instance: instance.id },
        'this server instance was taken for dead (no heartbeat in time) and registered again; the answers and ingestions it had running then were settled as interrupted',
      );
  };
  const recoverOnce = async (): Promise<void> => {
    // Registered again first if another took this one for dead, so its own work is not settled here.
    await beatOnce();
    const dead = await deadInstances(storage, instance, { timeoutMs });
    const answers = await recoverInterruptedAnswers(storage, dead);
    const ingestions = await recoverInterruptedIngestions(storage, dead);
    if (dead.length === 0 && answers.answers === 0 && ingestions === 0) return;
    if (dead.length > 0) await storage.db.deleteFrom('server_instances').where('id', 'in', dead).execute();
    logger.warn(
      { instances: dead, answers: answers.answers, refunded: answers.refunded, ingestions },
      'settled the work of server instances that stopped without finishing it',
    );
  };
  // One recovery at a time in this process; failures are logged and retried on the next tick.
  const recover = (): Promise<void> => {
    running ??= recoverOnce()
      .catch((error: unknown) => logJobFailure(options.outage, logger, error, 'recovering interrupted work'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  await recover();
  const beat = setInterval(() => {
    beatOnce().catch((error: unknown) => logJobFailure(options.outage, logger, error, 'instance heartbeat'));
  }, options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS);
  const sweep = setInterval(() => void recover(), options.recoveryMs ?? RECOVERY_INTERVAL_MS);
  beat.unref();
  sweep.unref();

  return {
    instance,
    recover,
    stop: async () => {
      clearInterval(beat);
      clearInterval(sweep);
      await running;
      await removeInstance(storage, instance.id);
    },
  };
}
