import type { ZodError } from 'zod';

/** One problem with a request: where (`messages.2.role`, '' for the whole body) and what. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** Problems listed in one error body: enough to fix a request, bounded for a hostile one. */
export const MAX_ERROR_DETAILS = 20;

/** `details` of a 400: `{path, message}` per problem; `path` is dotted (`messages.2.role`), '' for the body. */
export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.slice(0, MAX_ERROR_DETAILS).map((issue) => ({
    path: issue.path.join('.'),
    message: issue.message,
  }));
}
