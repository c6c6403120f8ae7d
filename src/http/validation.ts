import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { ZodSchema } from 'zod';
import { zodDetails } from '../errors/validation-details.ts';
import { DocentError } from './errors.ts';
import { refuseNulCharacters } from './nul-characters.ts';

export { MAX_ERROR_DETAILS, zodDetails } from '../errors/validation-details.ts';

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
    refuseNulCharacters(result.data);
  });
}
