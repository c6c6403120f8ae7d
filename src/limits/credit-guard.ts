import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { DomainError } from '../errors/domain-error.ts';
import { isUniqueViolation } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { databaseUnavailable } from '../storage/database-open-problem.ts';
import { type WriteUnit, withWriteUnit } from '../storage/write-unit.ts';
import type { Plan } from '../tenancy/plans.ts';
import { chargeWithin, refundCredits, refundWithin } from './credits.ts';

/**
 * Credits an organization must have had left after its last charge on this process before its answer
 * may start while the charge is still committing (`mayStartBeforeCharged`): more than the answers that
 * can plausibly be starting at once, so a stale figure (other processes charging too) still cannot reach
 * the end of the credits unnoticed.
 */
export const EARLY_ANSWER_HEADROOM = 64;
/** Organizations whose last known headroom this process keeps. */
const HEADROOM_ENTRIES = 10_000;
/** Appends racing on one thread's sequence number are retried this often before giving up. */
const MAX_SETTLE_ATTEMPTS = 5;

/** One charged request: what a refund needs. */
export interface ChargedRequest {
  organizationId: string;
  requestId: string;
}

export interface ChargeRequest {
  organizationId: string;
  siteId: string;
  requestId: string;
  /** The organization's plan as the caller has just read it. */
  plan: Plan;
}

/**
 * The credit policy of an answer: one charge per question, committed with the caller's own writes (a
 * new thread and the question), a refund when no answer text went out, and the early start that lets a
 * charge that cannot be refused commit while the model is already working.
 */
export interface CreditGuard {
  /** Charges and runs `within` in the same write unit: both commit or neither does (402 on refusal). */
  charge<T>(request: ChargeRequest, within: (unit: WriteUnit) => Promise<T>): Promise<T>;
  /**
   * Whether the answer may start before `charge` has committed: when the charge cannot be refused for
   * credits, because the plan's overage is uncapped or the organization had at least
   * `EARLY_ANSWER_HEADROOM` credits left after its last charge here. Otherwise a request the charge would
   * refuse could make the operator pay a model for nothing.
   */
  mayStartBeforeCharged(organizationId: string, plan: Plan): boolean;
  /**
   * Gives a charge back (idempotent), with the caller's `within` in the same unit; failures are
   * logged, not thrown.
   */
  refund(charged: ChargedRequest, within?: (unit: WriteUnit) => Promise<void>): Promise<void>;
  /**
   * Stores the answer (`within`) with the refund of `charged` when `refunding`, in one write unit;
   * failures are logged, not thrown, and a refund that could not commit with the answer is retried alone.
   * While the database is unreachable the unit is tried again in the background (see
   * `SETTLE_OUTAGE_RETRY_DELAYS_MS`), and this returns at once.
   */
  settle(
    charged: ChargedRequest | undefined,
    refunding: boolean,
    within: (unit: WriteUnit) => Promise<void>,
  ): Promise<void>;
}

/**
 * Waits between tries to store an answer while the database is unreachable: about 45 s in all, longer
 * than a database restart or failover takes, short enough that a process stopping meanwhile is rare.
 */
export const SETTLE_OUTAGE_RETRY_DELAYS_MS: readonly number[] = [
  500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000,
];

export interface CreditGuardOptions {
  /** Waits before each further try to store an answer while the database is unreachable; none: no retry. */
  outageRetryDelaysMs?: readonly number[];
}

export function createCreditGuard(
  storage: Storage,
  logger: Logger,
  options: CreditGuardOptions = {},
): CreditGuard {
  const outageRetryDelaysMs = options.outageRetryDelaysMs ?? SETTLE_OUTAGE_RETRY_DELAYS_MS;
  // Each organization's chargeable credits after its last charge on this process.
  const headroom = new LRUCache<string, number>({ max: HEADROOM_ENTRIES });

  const refund = async (
    charged: ChargedRequest,
    within?: (unit: WriteUnit) => Promise<void>,
  ): Promise<void> => {
    const work =
      within === undefined
        ? refundCredits(storage, charged)
        : withWriteUnit(storage, { lockOrganizationId: charged.organizationId }, async (unit) => {
            await refundWithin(unit, charged);
            await within(unit);
          });
    await work.catch((error: unknown) =>
      logger.error({ err: error, requestId: charged.requestId }, 'refund failed'),
    );
  };

  return {
    charge: async (request, within) => {
      const { organizationId } = request;
      let left: number | undefined;
      const result = await withWriteUnit(storage, { lockOrganizationId: organizationId }, async (unit) => {
        const charge = await chargeWithin(unit, {
          organizationId,
          siteId: request.siteId,
          requestId: request.requestId,
          fresh: true,
          plan: request.plan,
        });
        left = charge.headroom;
        return within(unit);
      }).catch((error: unknown) => {
        if (error instanceof DomainError && error.kind === 'credits_exhausted')
          headroom.set(organizationId, 0);
        throw error;
      });
      if (left !== undefined) headroom.set(organizationId, left);
      return result;
    },

    mayStartBeforeCharged: (organizationId, plan) => {
      if (plan.overageEnabled && plan.overageCap === null) return true;
      return (headroom.get(organizationId) ?? 0) >= EARLY_ANSWER_HEADROOM;
    },

    refund,

    settle: async (charged, refunding, within) => {
      const refundNow = refunding && charged !== undefined;
      const attempt = () =>
        withWriteUnit(
          storage,
          refundNow ? { lockOrganizationId: charged.organizationId } : {},
          async (unit) => {
            if (refundNow) await refundWithin(unit, charged);
            await within(unit);
          },
        );
      const failed = async (error: unknown) => {
        logger.error({ err: error, requestId: charged?.requestId }, 'storing the answer failed');
        if (refundNow) await refund(charged);
      };
      for (let tries = 0; ; tries++) {
        try {
          await attempt();
          return;
        } catch (error) {
          // A unique key another unit took first (it committed between our read and write): again.
          if (tries < MAX_SETTLE_ATTEMPTS && isUniqueViolation(error)) continue;
          if (databaseUnavailable(error) && outageRetryDelaysMs.length > 0) {
            // The reader has the answer already: storing it waits for the database in the background,
            // so the stream ends now. Left unstored, its in-flight row would have it refunded and stored
            // empty as "aborted" once this process stops, although it was read in full.
            logger.warn(
              { requestId: charged?.requestId, cause: (error as Error).message },
              'storing the answer waits for the database',
            );
            void retryWhileUnavailable(attempt, outageRetryDelaysMs).then(
              () =>
                logger.info({ requestId: charged?.requestId }, 'answer stored after the database came back'),
              failed,
            );
            return;
          }
          await failed(error);
          return;
        }
      }
    },
  };
}

/** Runs `attempt` after each delay until it commits; the last error once the delays are used up or it is not an outage. */
async function retryWhileUnavailable(
  attempt: () => Promise<void>,
  delaysMs: readonly number[],
): Promise<void> {
  for (let i = 0; ; i++) {
    // Unref'd: a stopping process does not wait for the database; crash recovery settles the answer then.
    await new Promise((resolve) => setTimeout(resolve, delaysMs[i]).unref());
    try {
      await attempt();
      return;
    } catch (error) {
      if (i + 1 >= delaysMs.length || !databaseUnavailable(error)) throw error;
    }
  }
}
