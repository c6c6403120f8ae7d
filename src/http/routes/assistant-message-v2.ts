import { Hono } from 'hono';
import type { AnswerService } from '../../assistant/answer-question.ts';
import { coalescingWriter } from '../../assistant/answer-stream.ts';
import { retrievalOf } from '../../assistant/request-schema.ts';
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStreamSink } from '../../assistant/ui-message-stream.ts';
import {
  MAX_BODY_BYTES,
  uiAssistantRequestSchema,
  uiMessageText,
} from '../../assistant/ui-request-schema.ts';
import type { TrustProxy } from '../../config.ts';
import type { ResumableStreams } from '../../streams/resumable-streams.ts';
import type { AppEnv } from '../app-env.ts';
import type { AssistantAccess } from '../assistant-access.ts';
import { streamHeaders } from '../assistant-headers.ts';
import { clientGone } from '../node-request.ts';
import { readAssistantBody } from '../request-body.ts';
import { requestOrigin } from '../request-origin.ts';
import { relayResumed } from '../resumed-stream.ts';
import { streamedResponse } from '../streamed-response.ts';
import { ASSISTANT_PREFIXES } from './assistant-message.ts';

export interface AssistantV2RouteDeps {
  answers: AnswerService;
  access: AssistantAccess;
  streams: ResumableStreams;
  trustProxy: TrustProxy;
}

/**
 * `POST /v2/assistant/{domain}/message`: the UI message stream of AI SDK 5, 6 and 7
 * (ui-message-stream.ts), and `GET …/message/{chatId}/stream`, which resumes a chat's answer in flight.
 */
export function assistantMessageV2Route(deps: AssistantV2RouteDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const { access } = deps;
  for (const prefix of ASSISTANT_PREFIXES) {
    const path = `${prefix}/v2/assistant/:domain/message`;
    route.options(path, access.preflight);
    route.post(path, access.wrap, async (c) => {
      const gone = clientGone(c);
      const caller = await access.admit(c);
      const body = await readAssistantBody(c, uiAssistantRequestSchema, MAX_BODY_BYTES);
      // Recorded under the chat id so a reload can resume it; the answer outlives a dropped reader briefly.
      const recorded = body.id ? deps.streams.record(`${caller.site.id}:${body.id}`, gone) : undefined;
      const last = body.messages.at(-1);
      const answer = await deps.answers
        .ask({
          site: caller.site,
          plan: caller.plan,
          requestId: c.get('requestId'),
          fp: body.fp,
          threadId: body.threadId,
          threadKey: body.threadKey,
          question: last ? uiMessageText(last) : '',
          regenerate: body.trigger === 'regenerate-message',
          retrieval: retrievalOf(body),
          origin: requestOrigin(c, deps.trustProxy),
          gone: recorded?.gone ?? gone,
          logger: c.get('logger'),
        })
        .catch((error: unknown) => {
          recorded?.end();
          throw error;
        });
      const headers = streamHeaders(c, access, UI_MESSAGE_STREAM_HEADERS, answer);
      return streamedResponse(
        c,
        headers,
        async (sink) => {
          const out = coalescingWriter({
            write: (text) => {
              sink.write(text);
              recorded?.write(text);
            },
          });
          await answer.write(uiMessageStreamSink(out, answer));
          out.flush();
          recorded?.end();
        },
        (error) => c.get('logger').error({ err: error }, 'answer stream failed unexpectedly'),
      );
    });

    const resumePath = `${path}/:chatId/stream`;
    route.options(resumePath, access.preflight);
    route.get(resumePath, access.wrap, async (c) => {
      const gone = clientGone(c);
      const caller = await access.admit(c);
      const stream = await deps.streams.resume(`${caller.site.id}:${c.req.param('chatId')}`);
      if (stream === undefined) return c.body(null, 204);
      const headers = {
        ...UI_MESSAGE_STREAM_HEADERS,
        'X-Request-Id': c.get('requestId'),
        ...access.responseHeaders(c),
      };
      return streamedResponse(
        c,
        headers,
        (sink) => relayResumed(stream, sink, gone.signal),
        (error) => c.get('logger').error({ err: error }, 'resumed stream failed'),
      );
    });
  }
  return route;
}
