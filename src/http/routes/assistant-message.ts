import { Hono } from 'hono';
import type { AnswerService } from '../../assistant/answer-question.ts';
import { coalescingWriter } from '../../assistant/answer-stream.ts';
import {
  assistantRequestSchema,
  MAX_BODY_BYTES,
  messageText,
  retrievalOf,
} from '../../assistant/request-schema.ts';
import { clientTurns } from '../../assistant/retrieval-query.ts';
import { assistantStreamHeaders, dataStreamSink } from '../../assistant/stream-protocol.ts';
import type { TrustProxy } from '../../config.ts';
import type { AppEnv } from '../app-env.ts';
import type { AssistantAccess } from '../assistant-access.ts';
import { streamHeaders } from '../assistant-headers.ts';
import { clientGone } from '../node-request.ts';
import { readAssistantBody } from '../request-body.ts';
import { requestOrigin } from '../request-origin.ts';
import { streamedResponse } from '../streamed-response.ts';

export interface AssistantRouteDeps {
  answers: AnswerService;
  access: AssistantAccess;
  trustProxy: TrustProxy;
}

/** Both prefixes serve the same handler: `/discovery` is the hosted service's documented address. */
export const ASSISTANT_PREFIXES = ['', '/discovery'] as const;

/** `POST /v1/assistant/{domain}/message`: the AI SDK v4 data stream (stream-protocol.ts). */
export function assistantMessageRoute(deps: AssistantRouteDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  for (const prefix of ASSISTANT_PREFIXES) {
    const path = `${prefix}/v1/assistant/:domain/message`;
    route.options(path, deps.access.preflight);
    route.post(path, deps.access.wrap, async (c) => {
      // Listening from the start: a client that leaves during retrieval must still stop the answer.
      const gone = clientGone(c);
      const caller = await deps.access.admit(c);
      const body = await readAssistantBody(c, assistantRequestSchema, MAX_BODY_BYTES);
      const lastUser = body.messages.at(-1);
      const answer = await deps.answers.ask({
        site: caller.site,
        plan: caller.plan,
        requestId: c.get('requestId'),
        fp: body.fp,
        threadId: body.threadId,
        threadKey: body.threadKey,
        question: lastUser ? messageText(lastUser) : '',
        clientTurns: clientTurns(body.messages),
        retrieval: retrievalOf(body),
        origin: requestOrigin(c, deps.trustProxy),
        gone,
        logger: c.get('logger'),
      });
      const headers = streamHeaders(
        c,
        deps.access,
        assistantStreamHeaders(caller.site.domain, prefix),
        answer,
      );
      return streamedResponse(
        c,
        headers,
        async (sink) => {
          const out = coalescingWriter(sink);
          await answer.write(dataStreamSink(out, answer));
          out.flush();
        },
        (error) => c.get('logger').error({ err: error }, 'answer stream failed unexpectedly'),
      );
    });
  }
  return route;
}
