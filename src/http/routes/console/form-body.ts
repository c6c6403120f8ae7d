import type { Context } from 'hono';
import { DocentError } from '../../errors.ts';

type Form = Awaited<ReturnType<Context['req']['parseBody']>>;

/**
 * A console form's fields (`c.req.parseBody()`). A body that claims to be `multipart/form-data` but is
 * none (no boundary, a broken part) makes the platform's parser throw a TypeError: that is the client's
 * malformed request, a 400, not an internal error (it was a 500 on every console form, sign-in included).
 */
export async function readForm(c: Context): Promise<Form> {
  try {
    return await c.req.parseBody();
  } catch (error) {
    if (error instanceof TypeError)
      throw new DocentError('invalid_request', 'The form could not be read (a malformed form body)', {
        cause: error,
      });
    throw error;
  }
}
