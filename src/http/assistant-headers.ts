import type { Context } from 'hono';
import type { AppEnv } from './app-env.ts';
import type { AssistantAccess } from './assistant-access.ts';

/**
 * The headers of a streamed answer, in one place for every wire: the protocol's own, the request id
 * (a response written straight to Node skips headers set on the context), the thread, and the CORS and
 * rate-limit headers of the access layer.
 */
export function streamHeaders(
  c: Context<AppEnv>,
  access: AssistantAccess,
  wire: Record<string, string>,
  thread: { threadId: string; threadKey?: string | undefined },
): Record<string, string> {
  const headers: Record<string, string> = {
    ...wire,
    'X-Request-Id': c.get('requestId'),
    'X-Thread-Id': thread.threadId,
  };
  if (thread.threadKey) headers['X-Thread-Key'] = thread.threadKey;
  return Object.assign(headers, access.responseHeaders(c));
}
