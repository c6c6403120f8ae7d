import type { Source } from './chat-client.ts';

/**
 * The conversation as the panel shows it, kept in `sessionStorage` per site so a reload or a click to
 * another docs page keeps it (and can resume an answer still streaming), while a new tab starts afresh.
 */

export type MessageStatus = 'streaming' | 'done' | 'stopped' | 'error';

export interface ShownFailure {
  title: string;
  detail: string;
  /** Whether "Try again" makes sense (not for a bad key or exhausted credits). */
  retry: boolean;
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  sources: Source[];
  status: MessageStatus;
  /** For a user message: the text or code it was asked about. */
  about?: string;
  failure?: ShownFailure;
  feedback?: { rating: 'up' | 'down'; comment?: string };
}

export interface ChatState {
  chatId: string;
  threadId?: string;
  threadKey?: string;
  /** The reader's fingerprint the thread belongs to: a thread is followed up only under it. */
  fp?: string;
  messages: ChatMessage[];
}

/** Stored conversations are capped so a long session cannot fill the origin's storage quota. */
export const MAX_STORED_MESSAGES = 100;

export function newChat(): ChatState {
  return { chatId: `chat_${randomId()}`, messages: [] };
}

/**
 * 32 hex digits. From `getRandomValues`, not `randomUUID`: the latter exists only in secure contexts, and
 * docs served over plain HTTP on an intranet host must work too.
 */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = '';
  for (const byte of bytes) id += byte.toString(16).padStart(2, '0');
  return id;
}

function storageKey(domain: string): string {
  return `docent:${domain}`;
}

export function loadChat(domain: string): ChatState {
  try {
    const raw = sessionStorage.getItem(storageKey(domain));
    if (!raw) return newChat();
    const parsed = JSON.parse(raw) as ChatState;
    if (typeof parsed.chatId !== 'string' || !Array.isArray(parsed.messages)) return newChat();
    return parsed;
  } catch {
    return newChat();
  }
}

export function saveChat(domain: string, state: ChatState): void {
  try {
    const messages = state.messages.slice(-MAX_STORED_MESSAGES);
    sessionStorage.setItem(storageKey(domain), JSON.stringify({ ...state, messages }));
  } catch {
    // Storage full or blocked (private mode): the conversation lives until the page closes.
  }
}

export function clearChat(domain: string): void {
  try {
    sessionStorage.removeItem(storageKey(domain));
  } catch {
    // As above.
  }
}
