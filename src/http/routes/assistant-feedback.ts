import { Hono } from 'hono';
import { feedbackRequestSchema, MAX_FEEDBACK_BODY_BYTES, recordFeedback } from '../../assistant/feedback.ts';
import { widgetConfig } from '../../assistant/widget-config.ts';
import type { Storage } from '../../storage/database.ts';
import type { AppEnv } from '../app-env.ts';
import type { AssistantAccess } from '../assistant-access.ts';
import { readAssistantBody } from '../request-body.ts';
import { ASSISTANT_PREFIXES } from './assistant-message.ts';

export interface AssistantFeedbackDeps {
  storage: Storage;
  access: AssistantAccess;
}

/**
 * `POST /v2/assistant/{domain}/feedback` (also under `/discovery`): a reader's vote on an answer. The
 * assistant key, origin check and CORS of the message route, but the widget's own rate-limit windows
 * and no credit: voting never costs the organization an answer.
 */
export function assistantFeedbackRoute(deps: AssistantFeedbackDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const { access } = deps;
  for (const prefix of ASSISTANT_PREFIXES) {
    const path = `${prefix}/v2/assistant/:domain/feedback`;
    route.options(path, access.preflight);
    route.post(path, access.wrap, async (c) => {
      const { site } = await access.admit(c, { windows: 'widget' });
      const body = await readAssistantBody(c, feedbackRequestSchema, MAX_FEEDBACK_BODY_BYTES);
      const recorded = await recordFeedback(deps.storage, {
        site,
        fp: body.fp,
        threadId: body.threadId,
        threadKey: body.threadKey,
        messageId: body.messageId,
        rating: body.rating,
        comment: body.comment,
      });
      return c.json(recorded);
    });
  }
  return route;
}

/**
 * `GET /v2/assistant/{domain}/config` (also under `/discovery`): what the widget shows on an empty
 * panel. Same key and origin rules as the message route, in the widget's rate-limit windows.
 */
export function assistantConfigRoute(deps: { access: AssistantAccess }): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const { access } = deps;
  for (const prefix of ASSISTANT_PREFIXES) {
    const path = `${prefix}/v2/assistant/:domain/config`;
    route.options(path, access.preflight);
    route.get(path, access.wrap, async (c) => {
      const { site } = await access.admit(c, { windows: 'widget' });
      return c.json(widgetConfig(site));
    });
  }
  return route;
}
