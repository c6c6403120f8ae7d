import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError, DomainErrorKind } from '../errors/domain-error.ts';
import type { ErrorDetail } from '../errors/validation-details.ts';

/** The closed list of error codes a client can see, and the one table from code to HTTP status. */
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  credits_exhausted: 402,
  forbidden: 403,
  not_found: 404,
  thread_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorStatus;

export type { ErrorDetail };

/** The one error type routes throw; the error handler turns it into the standard JSON body. */
export class DocentError extends Error {
  override name = 'DocentError';
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): ContentfulStatusCode {
    return errorStatus[this.code];
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; requestId: string };
}

export function errorBody(error: DocentError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId,
    },
  };
}

/** The one table from a domain error's kind to the HTTP error code a client sees. */
const codeOfDomainKind = {
  invalid_input: 'invalid_request',
  unauthenticated: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  thread_not_found: 'thread_not_found',
  credits_exhausted: 'credits_exhausted',
  unavailable: 'unavailable',
  too_many_running: 'rate_limited',
} as const satisfies Record<DomainErrorKind, ErrorCode>;

/** A domain error as the HTTP error it is answered with. */
export function fromDomainError(error: DomainError): DocentError {
  const headers: Record<string, string> = {};
  if (error.kind === 'unauthenticated')
    headers['WWW-Authenticate'] = error.reason === 'invalid' ? 'Bearer error="invalid_token"' : 'Bearer';
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.thread) {
    headers['X-Thread-Id'] = error.thread.id;
    if (error.thread.key) headers['X-Thread-Key'] = error.thread.key;
  }
  return new DocentError(codeOfDomainKind[error.kind], error.message, {
    cause: error,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  });
}
