import type { ContextItem, RequestMessage } from './request-schema.ts';

/** Follow-ups shorter than this many words borrow the previous question ("and on Windows?"). */
const SHORT_FOLLOW_UP_WORDS = 6;
/** How much of each context item joins the query: enough to sharpen it, not enough to drown it. */
const CONTEXT_QUERY_CHARS = 300;

export function messageText(message: RequestMessage): string {
  const fromParts = message.parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text.length > 0)
    .join('\n');
  return (fromParts || message.content).trim();
}

/**
 * The search query for a request: the last user question, the previous user question when the last
 * one is a short follow-up, and the beginning of any selected text or code the reader sent along.
 */
export function retrievalQuery(
  messages: readonly RequestMessage[],
  context: readonly ContextItem[] = [],
): string {
  const userTexts = messages.filter((m) => m.role === 'user').map(messageText);
  const question = userTexts.at(-1) ?? '';
  const parts = [question];
  const words = question.split(/\s+/).filter(Boolean).length;
  const previous = userTexts.at(-2);
  if (words < SHORT_FOLLOW_UP_WORDS && previous) parts.unshift(previous);
  for (const item of context) parts.push(item.value.slice(0, CONTEXT_QUERY_CHARS));
  return parts.join('\n').trim();
}
