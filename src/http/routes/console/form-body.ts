import type { Context, MiddlewareHandler } from 'hono';
import { DocentError } from '../../errors.ts';
import { refuseNulCharacters } from '../../nul-characters.ts';

type Form = Awaited<ReturnType<Context['req']['parseBody']>>;

/**
 * A console form's fields (`c.req.parseBody()`). A body that claims to be `multipart/form-data` but is
 * none (no boundary, a broken part) makes the platform's parser throw a TypeError: that is the client's
 * malformed request, a 400, not an internal error (it was a 500 on every console form, sign-in included).
 * A field holding U+0000 is a 400 too, as in the JSON API: PostgreSQL cannot store it, nor compare with it.
 */
export async function readForm(c: Context): Promise<Form> {
  let form: Form;
  try {
    form = await c.req.parseBody();
  } catch (error) {
    if (error instanceof TypeError)
      throw new DocentError('invalid_request', 'The form could not be read (a malformed form body)', {
        cause: error,
      });
    throw error;
  }
  refuseNulCharacters(form, 'form');
  return form;
}

/**
 * The console's path and query string may not hold U+0000 (`%00`), as the API's may not: a filter, a
 * site or a job id with one reached PostgreSQL, which refuses such text, and every screen answered 500.
 */
export const refuseNulInAddress: MiddlewareHandler = async (c, next) => {
  if (c.req.path.includes('\u0000'))
    throw new DocentError('invalid_request', 'Invalid path', {
      details: [{ path: 'path', message: 'Text may not contain the NUL character (U+0000)' }],
    });
  refuseNulCharacters(c.req.queries(), 'query');
  await next();
};
