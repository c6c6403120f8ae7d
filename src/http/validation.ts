import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { ZodError, ZodSchema } from 'zod';
import { DocentError, type ErrorDetail } from './errors.ts';

/** Problems listed in one error body: enough to fix a request, bounded for a hostile one. */
export const MAX_ERROR_DETAILS = 20;

/** `details` of a 400: `{path, message}` per problem; `path` is dotted (`messages.2.role`), '' for the body. */
export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.slice(0, MAX_ERROR_DETAILS).map((issue) => ({
    path: issue.path.join('.'),
    message: issue.message,
  }));
}

/**
 * zValidator with Docent's hook: a failed validation throws the one error type, so the one error
 * handler writes the standard body (with the request id) for every route.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends ZodSchema>(
  target: Target,
  schema: Schema,
) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      const where = target === 'json' ? 'request body' : target;
      throw new DocentError('invalid_request', `Invalid ${where}`, { details: zodDetails(result.error) });
    }
  });
}
