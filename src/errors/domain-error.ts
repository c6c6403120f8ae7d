/**
 * The errors domain code (assistant, limits, tenancy, search, ingest) throws. They say what went wrong
 * in the caller's terms; `src/http/errors.ts` maps each kind to an HTTP error code in one table, so no
 * module below the HTTP layer knows about statuses or headers.
 */
export const DOMAIN_ERROR_KINDS = [
  /** The input breaks a rule the caller can fix. */
  'invalid_input',
  /** No credential, or not a valid one (`reason` says which). */
  'unauthenticated',
  /** A valid credential that may not do this. */
  'forbidden',
  'not_found',
  /** A follow-up names a thread this caller may not continue (or none). */
  'thread_not_found',
  /** The plan allows no more credits this period. */
  'credits_exhausted',
  /** The answer model (or another dependency) failed; safe to retry later. */
  'unavailable',
  /** The caller already has as many of these running as it may: retry when one ends. */
  'too_many_running',
] as const;

export type DomainErrorKind = (typeof DOMAIN_ERROR_KINDS)[number];

export interface DomainErrorOptions {
  cause?: unknown;
  /** For `unauthenticated`: no credential at all, or one that is not valid. */
  reason?: 'missing' | 'invalid';
  /** The thread the failed request still created or continued, so the client can keep it. */
  thread?: { id: string; key?: string | undefined };
  /** For `too_many_running`, and `unavailable` when the model provider said: when trying again is worth it. */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  override name = 'DomainError';
  readonly kind: DomainErrorKind;
  readonly reason: 'missing' | 'invalid' | undefined;
  readonly thread: { id: string; key?: string | undefined } | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: DomainErrorKind, message: string, options: DomainErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.kind = kind;
    this.reason = options.reason;
    this.thread = options.thread;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
