import { zValidator } from '@hono/zod-validator';
import type { Context, ValidationTargets } from 'hono';
import type { ZodSchema, z } from 'zod';
import { zodDetails } from '../errors/validation-details.ts';
import { DocentError } from './errors.ts';
import { replaceLoneSurrogates } from './lone-surrogates.ts';
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
  const validator = zValidator(target, schema, (result, c) => {
    const where = target === 'json' ? 'request body' : target;
    if (!result.success)
      throw new DocentError('invalid_request', `Invalid ${where}`, { details: zodDetails(result.error) });
    // A query as sent: its schema may move parameters (`page` into `filter.page`), and the error names
    // what the client wrote.
    refuseNulCharacters(target === 'query' ? queryAsSent(c) : result.data, where);
    if (target === 'json') replaceLoneSurrogates(result.data);
  });
  if (target !== 'json') return validator;
  // The validator reads a body of another type as no body at all, and would name the fields as missing.
  return (async (c, next) => {
    requireJsonBody(c);
    return validator(c, next);
  }) as typeof validator;
}

/** A body sent as something other than JSON (`curl -d` sends a form) is refused for what it is. */
function requireJsonBody(c: Context): void {
  const length = c.req.header('Content-Length');
  const hasBody = (length !== undefined && length !== '0') || c.req.header('Transfer-Encoding') !== undefined;
  const type = c.req.header('Content-Type');
  if (hasBody && (type === undefined || !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)))
    throw new DocentError(
      'unsupported_media_type',
      `Send the request body as JSON, with Content-Type: application/json (got ${type ?? 'no Content-Type'})`,
    );
}

/** Each query parameter's values together, by name. */
function queryAsSent(c: Context): Record<string, string> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([name, values]) => [name, values.join('')]));
}

/**
 * The JSON body of a route whose body is optional: an empty body is `{}` even when it comes with
 * `Content-Type: application/json` (`curl -X POST -H 'Content-Type: application/json'` and no `-d`), which
 * the `json` validator refuses as malformed.
 */
export async function optionalJsonBody<Schema extends ZodSchema>(
  c: Context,
  schema: Schema,
): Promise<z.infer<Schema>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== '') {
    // A body there is JSON, as for every other route: a form or plain text is refused, not parsed.
    requireJsonBody(c);
    try {
      value = JSON.parse(text);
    } catch {
      throw new DocentError('invalid_request', 'Malformed JSON in request body');
    }
  }
  const result = schema.safeParse(value);
  if (!result.success)
    throw new DocentError('invalid_request', 'Invalid request body', { details: zodDetails(result.error) });
  refuseNulCharacters(result.data);
  return replaceLoneSurrogates(result.data);
}
