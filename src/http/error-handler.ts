import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DomainError } from '../errors/domain-error.ts';
import type { AppEnv } from './app-env.ts';
import { DocentError, type ErrorCode, errorBody, fromDomainError } from './errors.ts';

function fromHttpException(error: HTTPException): DocentError {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
  };
  const code = byStatus[error.status];
  if (code) return new DocentError(code, error.message || code.replace(/_/g, ' '));
  return new DocentError('internal_error', 'Internal server error', { cause: error });
}

/** Longest path written to a log line. */
const MAX_LOGGED_PATH = 200;

function respond(c: Context<AppEnv>, error: DocentError): Response {
  const requestId = c.get('requestId') ?? 'unknown';
  if (error.status < 500) {
    // An integrator debugging "my widget gets 403" looks the request id up in the log. A flood of 429s
    // from one abuser would drown it, so those are written at debug level only.
    const line = {
      status: error.status,
      code: error.code,
      method: c.req.method,
      path: new URL(c.req.url).pathname.slice(0, MAX_LOGGED_PATH),
    };
    const logger = c.get('logger');
    if (error.status === 429) logger?.debug(line, 'request refused');
    else logger?.info(line, 'request refused');
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(errorBody(error, requestId), error.status);
}

/** The one error handler: every failure becomes `{error: {code, message, details?, requestId}}`. */
export const handleError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof DocentError) return respond(c, error);
  if (error instanceof DomainError) return respond(c, fromDomainError(error));
  if (error instanceof HTTPException) return respond(c, fromHttpException(error));
  // Malformed JSON bodies surface from Hono's body parsing as SyntaxError.
  if (error instanceof SyntaxError)
    return respond(c, new DocentError('invalid_request', 'Malformed JSON body'));
  c.get('logger')?.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
  return respond(c, new DocentError('internal_error', 'Internal server error'));
};

export const handleNotFound: NotFoundHandler<AppEnv> = (c) =>
  respond(c, new DocentError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`));
