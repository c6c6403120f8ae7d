/**
 * Request body of `POST /v2/assistant/{domain}/message`: what AI SDK 5, 6 and 7's `DefaultChatTransport`
 * sends (`id`, `messages` as UI messages, `trigger`, `messageId`) plus the v1 contract's fields, with
 * the same limits as v1 (request-schema.ts).
 *
 * The history is untrusted: the server's stored thread is the conversation, and the messages only
 * supply the question (the last user message's text parts). So part kinds are not checked beyond
 * their `type` (each SDK generation adds kinds: tool approvals, custom parts, reasoning files…), while
 * text parts, sizes and counts are.
 */
import { z } from 'zod';
import {
  contractFields,
  eachMessageText,
  lastMessageFromUser,
  MAX_ID_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGE_PARTS,
  messagesField,
  textOfParts,
  textWithinLimit,
} from './request-schema.ts';

export { MAX_BODY_BYTES } from './request-schema.ts';

/** Longest part `type` (`tool-<name>`, `data-<name>`): tool and data names are identifiers. */
export const MAX_PART_TYPE_CHARS = 200;

const idString = z.string().max(MAX_ID_CHARS);

/**
 * A part: its `type`, and any other keys kept unread. Text parts are checked by the body's refinement
 * (`textParts`), as is each message's text: a refinement on every part cost 8 µs a part and one on every
 * message as much, so a 1 MB body of 76,000 one-key parts (or 27,000 empty messages) held the event
 * loop for 0.5 to 0.7 s, and every answer on the server stalled meanwhile.
 */
const partSchema = z.object({ type: z.string().min(1).max(MAX_PART_TYPE_CHARS) }).passthrough();

/**
 * Each text part holds a string `text`, of at most `MAX_MESSAGE_CHARS` but in an answer: an answer of
 * Docent's may be longer (up to `MAX_ANSWER_CHARS`), and `useChat` sends it back in one text part with
 * every later question, which a bound on it refused (400) for the rest of the chat.
 */
function textParts(
  message: { role: string; parts: readonly { type: string }[] },
  ctx: z.RefinementCtx,
): void {
  message.parts.forEach((part, index) => {
    if (part.type !== 'text') return;
    const text = (part as { text?: unknown }).text;
    if (typeof text !== 'string') {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['parts', index, 'text'],
        message: 'a text part needs a string text',
      });
    } else if (text.length > MAX_MESSAGE_CHARS && message.role !== 'assistant') {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['parts', index, 'text'],
        message: `at most ${MAX_MESSAGE_CHARS} characters per text part`,
      });
    }
  });
}

export const uiMessageSchema = z.object({
  id: idString,
  role: z.enum(['system', 'user', 'assistant']),
  metadata: z.unknown().optional(),
  parts: z
    .array(partSchema, {
      // A v1 body (messages with `content` only) sent here: say where it belongs.
      required_error:
        'Required: a v2 message holds its text in parts ([{"type": "text", "text": "…"}]); messages with content alone are v1 messages, for POST /v1/assistant/{domain}/message',
    })
    .max(MAX_MESSAGE_PARTS),
});

export const uiAssistantRequestSchema = z
  .object({
    ...contractFields,
    /** The chat id (`useChat`'s `id`): the key a dropped stream is resumed by. */
    id: idString.min(1).optional(),
    /** Only the last is read: the stored thread is the conversation. */
    messages: messagesField(uiMessageSchema),
    trigger: z.enum(['submit-message', 'regenerate-message']).default('submit-message'),
    messageId: idString.optional(),
  })
  .superRefine((body, ctx) => {
    eachMessageText(body, ctx, (message, inMessage) => {
      textParts(message, inMessage);
      textWithinLimit(message, inMessage);
    });
    const last = body.messages.at(-1);
    if (lastMessageFromUser(body, ctx) && last !== undefined && uiMessageText(last) === '') {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['messages', body.messages.length - 1, 'parts'],
        message: 'the last message must hold the question as a text part',
      });
    }
  });

export type UiAssistantRequest = z.infer<typeof uiAssistantRequestSchema>;
export type UiMessage = z.infer<typeof uiMessageSchema>;

/** The text of a UI message: its text parts, joined. */
export function uiMessageText(message: UiMessage): string {
  return textOfParts(message.parts).trim();
}
