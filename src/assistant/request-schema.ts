/**
 * Request body of `POST /v1/assistant/{domain}/message`, exactly as `assistant-message-v1.md` defines it.
 *
 * Unknown keys are accepted everywhere (and stripped from the parsed value): an AI SDK v4 `useChat` client
 * sends `id`, `data`, `revisionId`, `toolInvocations`, `reasoning`… next to the contract's fields, and
 * rejecting those would break every real client. Wrong types of known fields are still rejected.
 */
import { z } from 'zod';

/*
 * Named limits. The contract only fixes `currentPath` (200); the rest are ours, chosen so that any real
 * chat fits with a wide margin while one request cannot make the server hold or scan megabytes of text.
 */

/** Whole request body in bytes; enforced by the route before parsing (413), not by this schema. */
export const MAX_BODY_BYTES = 1_000_000;
/**
 * Characters of one message's `content` (and of one text/reasoning part, and of a user message's text
 * parts together): ~10k words of pasted text. Not of an assistant message: an answer in the history may
 * be longer (up to `MAX_ANSWER_CHARS`, answer-stream.ts), and only the body's size bounds it (`contentWithinLimit`).
 */
export const MAX_MESSAGE_CHARS = 64_000;
/** Parts of one message. */
export const MAX_MESSAGE_PARTS = 500;
/** Context items (code snippets or selected text) in one request. */
export const MAX_CONTEXT_ITEMS = 20;
/** Characters of one context item's `value`. */
export const MAX_CONTEXT_CHARS = 20_000;
/** Per the contract. */
export const MAX_CURRENT_PATH_CHARS = 200;
/** The contract states no maximum; 50 matches the companion search endpoint's `pageSize` maximum. */
export const MAX_RETRIEVAL_PAGE_SIZE = 50;
export const DEFAULT_RETRIEVAL_PAGE_SIZE = 5;
/** `fp`, `threadId`, `threadKey`, message ids, `filter` values: identifiers, not text. */
export const MAX_ID_CHARS = 512;
/** A `file` part's media type (`image/png`). */
export const MAX_MIME_TYPE_CHARS = 255;

/** Any value that is present: zod's `unknown` would also accept a missing key, the contract says required. */
const present = z.custom<NonNullable<unknown> | null>((value) => value !== undefined, {
  message: 'Required',
});

const idString = z.string().max(MAX_ID_CHARS);

const reasoningDetailSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), signature: z.string().optional() }),
  z.object({ type: z.literal('redacted'), data: z.string() }),
]);

const toolInvocationBase = {
  toolCallId: z.string(),
  toolName: z.string(),
  step: z.number().optional(),
};

const toolInvocationSchema = z.discriminatedUnion('state', [
  // The v4 client creates a partial call with `args: undefined` when a tool call starts streaming; JSON drops
  // that key, so a chat stopped right there sends no `args`. Accept it rather than reject a real history.
  z.object({ state: z.literal('partial-call'), ...toolInvocationBase, args: z.unknown() }),
  z.object({ state: z.literal('call'), ...toolInvocationBase, args: present }),
  z.object({ state: z.literal('result'), ...toolInvocationBase, args: present, result: present }),
]);

// The lengths of texts are checked by the body's refinement (`contentWithinLimit`), by role.
const messagePartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('reasoning'),
    reasoning: z.string(),
    details: z.array(reasoningDetailSchema),
  }),
  z.object({ type: z.literal('step-start') }),
  z.object({
    type: z.literal('source'),
    source: z.object({
      sourceType: z.literal('url'),
      id: z.string(),
      url: z.string(),
      title: z.string().optional(),
    }),
  }),
  z.object({ type: z.literal('tool-invocation'), toolInvocation: toolInvocationSchema }),
  // A file the model sent (`k:` parts of ui-utils 1.2): kept in a real `useChat` history, never read here.
  // Its `data` (base64 or a URL) is bounded by the body size.
  z.object({ type: z.literal('file'), mimeType: z.string().max(MAX_MIME_TYPE_CHARS), data: z.string() }),
]);

const attachmentSchema = z.object({
  name: z.string().optional(),
  contentType: z.string().optional(),
  url: z.string(),
});

export const messageSchema = z.object({
  // `useChat` (v4) sends message ids only with `sendExtraMessageFields: true` (off by default), which the
  // contract requires: a body without them says so, rather than a bare "Required".
  id: z
    .string({
      required_error:
        'Required: a v4 useChat sends message ids only with sendExtraMessageFields: true, which this endpoint needs',
    })
    .max(MAX_ID_CHARS),
  role: z.enum(['system', 'assistant', 'data', 'user']),
  content: z.string(),
  parts: z.array(messagePartSchema).max(MAX_MESSAGE_PARTS),
  createdAt: z.string().datetime({ offset: true }).optional(),
  annotations: z.array(z.unknown()).optional(),
  experimental_attachments: z.array(attachmentSchema).optional(),
});

/**
 * A user message's text parts together, as they are read (joined), hold at most `MAX_MESSAGE_CHARS`: the
 * bound is on the question, not on each of its up to `MAX_MESSAGE_PARTS` pieces. An assistant message
 * of many steps may be longer (an answer of `MAX_OUTPUT_TOKENS`); only the body's size bounds it.
 */
export function textWithinLimit(
  message: { role: string; parts: readonly { type: string }[] },
  ctx: z.RefinementCtx,
): void {
  if (message.role === 'user' && textOfParts(message.parts).length > MAX_MESSAGE_CHARS)
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['parts'],
      message: `at most ${MAX_MESSAGE_CHARS} characters of text per message (its text parts together)`,
    });
}

/**
 * A v1 message's `content`, and each of its text and reasoning parts, hold at most `MAX_MESSAGE_CHARS`,
 * unless it is an answer. Docent itself writes answers of up to `MAX_ANSWER_CHARS` (256,000), which a
 * v4 `useChat` keeps in the assistant message's `content` and a text part and sends back with every
 * later question: bounded like a question, one answer past 64,000 characters got every later question
 * of that chat refused (400), for good.
 */
export function contentWithinLimit(
  message: { role: string; content: string; parts: readonly { type: string }[] },
  ctx: z.RefinementCtx,
): void {
  if (message.role === 'assistant') return;
  const tooLong = (path: (string | number)[]) =>
    ctx.addIssue({
      code: z.ZodIssueCode.too_big,
      maximum: MAX_MESSAGE_CHARS,
      type: 'string',
      inclusive: true,
      exact: false,
      path,
    });
  if (message.content.length > MAX_MESSAGE_CHARS) tooLong(['content']);
  message.parts.forEach((part, index) => {
    const { text, reasoning } = part as { text?: unknown; reasoning?: unknown };
    if (typeof text === 'string' && text.length > MAX_MESSAGE_CHARS) tooLong(['parts', index, 'text']);
    if (typeof reasoning === 'string' && reasoning.length > MAX_MESSAGE_CHARS)
      tooLong(['parts', index, 'reasoning']);
  });
}

/** A v1 message's question as it is read: its text parts, else its `content`, trimmed. */
export function messageText(message: { content: string; parts: readonly { type: string }[] }): string {
  return (textOfParts(message.parts) || message.content).trim();
}

/** A message's text as it is read: its non-empty text parts, joined by line breaks. */
export function textOfParts(parts: readonly { type: string }[]): string {
  const texts: string[] = [];
  for (const part of parts) {
    const text = (part as { text?: unknown }).text;
    if (part.type === 'text' && typeof text === 'string' && text.length > 0) texts.push(text);
  }
  return texts.join('\n');
}

export const filterSchema = z.object({
  version: idString.optional(),
  language: idString.optional(),
});

export const contextItemSchema = z.object({
  type: z.enum(['code', 'textSelection']),
  value: z.string().max(MAX_CONTEXT_CHARS),
  path: z.string().max(MAX_ID_CHARS).optional(),
  elementId: z.string().max(MAX_ID_CHARS).optional(),
});

/** The contract's fields besides `messages`, shared by the v1 and v2 request bodies. */
export const contractFields = {
  fp: idString.min(1, 'fp must be a non-empty string ("anonymous" for anonymous users)'),
  threadId: idString.nullish(),
  // Not in the contract's table; the hosted service this mirrors sends it back with `threadId`.
  threadKey: idString.nullish(),
  retrievalPageSize: z
    .number()
    .int('retrievalPageSize must be an integer')
    .min(1)
    .max(MAX_RETRIEVAL_PAGE_SIZE)
    .default(DEFAULT_RETRIEVAL_PAGE_SIZE),
  filter: filterSchema.nullish(),
  context: z.array(contextItemSchema).max(MAX_CONTEXT_ITEMS).optional(),
  currentPath: z.string().max(MAX_CURRENT_PATH_CHARS).optional(),
};

/**
 * `messages`: at least one, and any number (v1 and v2 clients send the whole chat with every question;
 * a cap on the count stopped a chat for good once it grew past it). The body's size bounds them
 * (`MAX_BODY_BYTES`). Each message's text is checked by the body's refinement (`eachMessageText`), not by
 * one refinement per message: at several µs each, a 1 MB body of tens of thousands of tiny messages
 * held the event loop for a large fraction of a second.
 */
export function messagesField<T extends z.ZodTypeAny>(message: T) {
  return z.array(message).min(1, 'messages must hold at least one message');
}

/** `ctx` for what lies at `path` under it: the issues added are placed there. */
export function within(ctx: z.RefinementCtx, path: (string | number)[]): z.RefinementCtx {
  return {
    path: [...ctx.path, ...path],
    addIssue: (issue) => ctx.addIssue({ ...issue, path: [...path, ...(issue.path ?? [])] }),
  };
}

/** `check` on each message, its issues placed under `messages.<index>`. */
export function eachMessageText<M>(
  body: { messages: readonly M[] },
  ctx: z.RefinementCtx,
  check: (message: M, ctx: z.RefinementCtx) => void,
): void {
  body.messages.forEach((message, index) => {
    check(message, within(ctx, ['messages', index]));
  });
}

/** The question is the last message, so it must be the user's. */
export function lastMessageFromUser(body: { messages: { role: string }[] }, ctx: z.RefinementCtx): boolean {
  const lastIndex = body.messages.length - 1;
  const last = body.messages[lastIndex];
  if (last === undefined || last.role === 'user') return true;
  ctx.addIssue({
    code: z.ZodIssueCode.custom,
    path: ['messages', lastIndex, 'role'],
    message: `the last message must be from the user (got "${last.role}")`,
  });
  return false;
}

export const assistantRequestSchema = z
  .object({ ...contractFields, messages: messagesField(messageSchema) })
  .superRefine((body, ctx) => {
    eachMessageText(body, ctx, (message, inMessage) => {
      contentWithinLimit(message, inMessage);
      textWithinLimit(message, inMessage);
    });
    const last = body.messages.at(-1);
    // A blank question asks nothing: a real model refused it (Anthropic: "text content blocks must be
    // non-empty"), which the reader saw as a 503, and v2 refuses it with a 400 too.
    if (lastMessageFromUser(body, ctx) && last !== undefined && messageText(last) === '')
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['messages', body.messages.length - 1, 'content'],
        message: 'the last message must hold the question',
      });
  });

/** What the answer service needs for retrieval, from either wire's parsed body. */
export function retrievalOf(body: {
  retrievalPageSize: number;
  filter?: { version?: string | undefined; language?: string | undefined } | null | undefined;
  currentPath?: string | undefined;
  context?: ContextItem[] | undefined;
}) {
  return {
    pageSize: body.retrievalPageSize,
    version: body.filter?.version,
    language: body.filter?.language,
    currentPath: body.currentPath,
    context: body.context ?? [],
  };
}

export type AssistantRequest = z.infer<typeof assistantRequestSchema>;
export type AssistantRequestInput = z.input<typeof assistantRequestSchema>;
export type RequestMessage = z.infer<typeof messageSchema>;
export type ContextItem = z.infer<typeof contextItemSchema>;
