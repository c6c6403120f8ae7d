import { readEvents } from './server-sent-events.ts';

/**
 * The widget's side of Docent's v2 wire (docs/api-reference/assistant-message-v2.mdx): the UI message
 * stream of AI SDK 5+ read from server-sent events, the resume call, feedback and the site's config.
 * Only the chunks the widget shows are read; the others pass by, as the SDK's own reader would.
 */

export interface Source {
  id: string;
  url: string;
  title: string;
}

export type StreamEvent =
  | { type: 'start'; messageId: string; threadId?: string; threadKey?: string }
  | { type: 'text'; delta: string }
  | { type: 'source'; source: Source }
  | { type: 'error'; message: string }
  | { type: 'finish'; finishReason?: string };

export interface ClientOptions {
  /** Docent's address, without a trailing slash. */
  server: string;
  domain: string;
  key: string;
}

export interface AskInput {
  chatId: string;
  fp: string;
  question: string;
  threadId?: string;
  threadKey?: string;
  regenerate?: boolean;
  currentPath?: string;
  filter?: { version?: string; language?: string };
  context?: { type: 'code' | 'textSelection'; value: string; path?: string }[];
}

/** Why a call failed, in the terms the panel explains to a reader. */
export type FailureKind =
  | 'rate_limited'
  | 'credits_exhausted'
  | 'unauthorized'
  | 'thread_not_found'
  | 'invalid_request'
  | 'offline'
  | 'unreachable'
  | 'server';

export class AssistantFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly requestId?: string,
    /** Seconds until a rate limit lets the next question through, when the server said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

function base(options: ClientOptions): string {
  return `${options.server}/v2/assistant/${encodeURIComponent(options.domain)}`;
}

function headers(options: ClientOptions, json: boolean): Record<string, string> {
  return {
    Authorization: `Bearer ${options.key}`,
    ...(json ? { 'Content-Type': 'application/json' } : {}),
  };
}

async function call(url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw lost(error, init.signal);
  }
  if (response.ok) return response;
  throw await failureOf(response);
}

/** A request or answer the network lost: offline, or the server unreachable (not a stop, which stays itself). */
function lost(error: unknown, signal: AbortSignal | null | undefined): unknown {
  if (signal?.aborted) return error;
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  return new AssistantFailure(offline ? 'offline' : 'unreachable', String(error));
}

/** The JSON error body (`{error: {code, message, requestId}}`) and rate-limit headers as a failure. */
export async function failureOf(response: Response): Promise<AssistantFailure> {
  let code = '';
  let message = `HTTP ${response.status}`;
  let requestId = response.headers.get('X-Request-Id') ?? undefined;
  try {
    const body = (await response.json()) as {
      error?: { code?: string; message?: string; requestId?: string };
    };
    code = body.error?.code ?? '';
    message = body.error?.message ?? message;
    requestId = body.error?.requestId ?? requestId;
  } catch {
    // A proxy's HTML error page: the status is all there is.
  }
  const status = response.status;
  if (status === 429) {
    // Neither header (another proxy's 429) is no known wait, not a wait of 0 (Number(null) is 0).
    const header = response.headers.get('RateLimit-Reset') ?? response.headers.get('Retry-After');
    const reset = header === null ? Number.NaN : Number(header);
    return new AssistantFailure(
      'rate_limited',
      message,
      requestId,
      Number.isFinite(reset) ? reset : undefined,
    );
  }
  if (status === 402) return new AssistantFailure('credits_exhausted', message, requestId);
  if (status === 401 || status === 403) return new AssistantFailure('unauthorized', message, requestId);
  if (code === 'thread_not_found') return new AssistantFailure('thread_not_found', message, requestId);
  if (status >= 400 && status < 500) return new AssistantFailure('invalid_request', message, requestId);
  return new AssistantFailure('server', message, requestId);
}

/** Asks a question; the answer's events go to `onEvent` as they arrive. */
export async function ask(
  options: ClientOptions,
  input: AskInput,
  onEvent: (event: StreamEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const body = {
    id: input.chatId,
    fp: input.fp,
    trigger: input.regenerate ? 'regenerate-message' : 'submit-message',
    messages: [
      { id: `u_${Date.now().toString(36)}`, role: 'user', parts: [{ type: 'text', text: input.question }] },
    ],
    ...(input.threadId ? { threadId: input.threadId } : {}),
    ...(input.threadKey ? { threadKey: input.threadKey } : {}),
    ...(input.currentPath ? { currentPath: input.currentPath } : {}),
    ...(input.filter && Object.keys(input.filter).length > 0 ? { filter: input.filter } : {}),
    ...(input.context && input.context.length > 0 ? { context: input.context } : {}),
  };
  const response = await call(`${base(options)}/message`, {
    method: 'POST',
    headers: headers(options, true),
    body: JSON.stringify(body),
    signal,
  });
  await readStream(response, onEvent, signal);
}

/**
 * Picks up the chat's answer still being written (after a reload): the stream replays from its start.
 * False when nothing is in flight (204).
 */
export async function resume(
  options: ClientOptions,
  chatId: string,
  onEvent: (event: StreamEvent) => void,
  signal: AbortSignal,
): Promise<boolean> {
  const response = await call(`${base(options)}/message/${encodeURIComponent(chatId)}/stream`, {
    headers: headers(options, false),
    signal,
  });
  if (response.status === 204) return false;
  await readStream(response, onEvent, signal);
  return true;
}

export interface SiteConfig {
  name: string;
  starterQuestions: string[];
}

export async function siteConfig(options: ClientOptions): Promise<SiteConfig> {
  const response = await call(`${base(options)}/config`, { headers: headers(options, false) });
  const body = (await response.json()) as Partial<SiteConfig>;
  return {
    name: typeof body.name === 'string' ? body.name : options.domain,
    starterQuestions: Array.isArray(body.starterQuestions)
      ? body.starterQuestions.filter((q): q is string => typeof q === 'string')
      : [],
  };
}

export interface FeedbackInput {
  fp: string;
  threadId: string;
  threadKey?: string;
  messageId: string;
  rating: 'up' | 'down';
  comment?: string | null;
}

export async function sendFeedback(options: ClientOptions, input: FeedbackInput): Promise<void> {
  await call(`${base(options)}/feedback`, {
    method: 'POST',
    headers: headers(options, true),
    body: JSON.stringify(input),
  });
}

async function readStream(
  response: Response,
  onEvent: (event: StreamEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  if (!response.body) throw new AssistantFailure('server', 'The answer had no body');
  // A connection cut mid-answer (the server went down, the network dropped) is said as such, not as
  // "Something went wrong".
  await readEvents(response.body, (data) => {
    if (data === '[DONE]') return;
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    const event = streamEventOf(chunk);
    if (event) onEvent(event);
  }).catch((error: unknown) => {
    throw lost(error, signal);
  });
}

/** One UI message stream chunk as a widget event; undefined for the chunks the panel does not show. */
export function streamEventOf(chunk: Record<string, unknown>): StreamEvent | undefined {
  const text = (key: string) => (typeof chunk[key] === 'string' ? (chunk[key] as string) : undefined);
  switch (chunk.type) {
    case 'start': {
      const metadata = (chunk.messageMetadata ?? {}) as Record<string, unknown>;
      return {
        type: 'start',
        messageId: text('messageId') ?? '',
        ...(typeof metadata.threadId === 'string' ? { threadId: metadata.threadId } : {}),
        ...(typeof metadata.threadKey === 'string' ? { threadKey: metadata.threadKey } : {}),
      };
    }
    case 'text-delta':
      return { type: 'text', delta: text('delta') ?? '' };
    case 'source-url': {
      const id = text('sourceId');
      const url = text('url');
      return id && url ? { type: 'source', source: { id, url, title: text('title') ?? url } } : undefined;
    }
    case 'error':
      return { type: 'error', message: text('errorText') ?? 'The answer failed' };
    case 'finish': {
      const metadata = (chunk.messageMetadata ?? {}) as Record<string, unknown>;
      const finishReason = typeof metadata.finishReason === 'string' ? metadata.finishReason : undefined;
      return { type: 'finish', ...(finishReason ? { finishReason } : {}) };
    }
    default:
      return undefined;
  }
}
