import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { DomainError } from '../errors/domain-error.ts';
import { isUniqueViolation } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
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
   */
  settle(
    charged: ChargedRequest | undefined,
    refunding: boolean,
    within: (unit: WriteUnit) => Promise<void>,
  ): Promise<void>;
}

export function createCreditGuard(storage: Storage, logger: Logger): CreditGuard {
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
      for (let attempt = 0; ; attempt++) {
        try {
          await withWriteUnit(
            storage,
            refundNow ? { lockOrganizationId: charged.organizationId } : {},
            async (unit) => {
              if (refundNow) await refundWithin(unit, charged);
              await within(unit);
            },
          );
          return;
        } catch (error) {
          // A unique key another unit took first (it committed between our read and write): again.
          if (attempt < MAX_SETTLE_ATTEMPTS && isUniqueViolation(error)) continue;
          logger.error({ err: error, requestId: charged?.requestId }, 'storing the answer failed');
          if (refundNow) await refund(charged);
          return;
        }
      }
    },
  };
}
