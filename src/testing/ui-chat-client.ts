/**
 * The real AI SDK 5, 6 and 7 chat clients for tests, without React: each generation's `AbstractChat`
 * (the class `useChat` wraps; `@ai-sdk/react`'s `Chat` only adds React state) with a plain state, over
 * its own `DefaultChatTransport`. The first and the latest release of each generation are installed as
 * aliased dev dependencies (`ai-v5-0` is `ai@5.0.0`, `ai-v5` the latest 5.x, …).
 */

/** A UI message as every generation shapes it (the parts this suite reads). */
export interface UiMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  metadata?: unknown;
  parts: { type: string; [key: string]: unknown }[];
}

type Status = 'submitted' | 'streaming' | 'ready' | 'error';

/** What the tests drive of a chat: `useChat`'s own methods. */
export interface UiChat {
  readonly id: string;
  readonly messages: UiMessage[];
  readonly status: Status;
  readonly error: Error | undefined;
  sendMessage(message: { text: string }, options?: { body?: object }): Promise<void>;
  regenerate(options?: { body?: object }): Promise<void>;
  stop(): Promise<void>;
  resumeStream(): Promise<void>;
}

interface ChatState {
  status: Status;
  error: Error | undefined;
  messages: UiMessage[];
  pushMessage(message: UiMessage): void;
  popMessage(): void;
  replaceMessage(index: number, message: UiMessage): void;
  snapshot<T>(thing: T): T;
}

interface UiModule {
  AbstractChat: abstract new (init: {
    id?: string;
    transport: unknown;
    state: ChatState;
    onFinish?: (event: { message: UiMessage }) => void;
  }) => UiChat;
  DefaultChatTransport: new (init: {
    api: string;
    headers?: Record<string, string>;
    body?: object;
    fetch?: typeof fetch;
  }) => unknown;
}

export interface UiClient {
  /** `ai@5.0.0` … */
  name: string;
  load(): Promise<UiModule>;
}

const load = (module: Promise<unknown>) => async () => (await module) as UiModule;

/** Every generation's strict first release and its latest, as installed. */
export const UI_CLIENTS: UiClient[] = [
  { name: 'ai@5.0.0', load: () => load(import('ai-v5-0'))() },
  { name: `ai@5 latest`, load: () => load(import('ai-v5'))() },
  { name: 'ai@6.0.0', load: () => load(import('ai-v6-0'))() },
  { name: 'ai@6 latest', load: () => load(import('ai-v6'))() },
  { name: 'ai@7.0.0', load: () => load(import('ai-v7-0'))() },
  { name: 'ai@7 latest', load: () => load(import('ai-v7'))() },
];

/** A chat as `useChat({ id, transport: new DefaultChatTransport({ api, headers, body }) })` makes it. */
export async function createUiChat(
  client: UiClient,
  options: {
    api: string;
    key: string;
    body?: object;
    id?: string;
    messages?: UiMessage[];
    fetch?: typeof fetch;
  },
): Promise<UiChat> {
  const ai = await client.load();
  const messages = options.messages ?? [];
  const state: ChatState = {
    status: 'ready',
    error: undefined,
    messages,
    pushMessage(message) {
      this.messages = [...this.messages, message];
    },
    popMessage() {
      this.messages = this.messages.slice(0, -1);
    },
    replaceMessage(index, message) {
      this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
    },
    snapshot: (thing) => structuredClone(thing),
  };
  class PlainChat extends ai.AbstractChat {}
  return new PlainChat({
    ...(options.id ? { id: options.id } : {}),
    transport: new ai.DefaultChatTransport({
      api: options.api,
      headers: { Authorization: `Bearer ${options.key}` },
      ...(options.body ? { body: options.body } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
    state,
  });
}

/** The answer's text (its text parts joined). */
export function uiText(message: UiMessage | undefined): string {
  return (message?.parts ?? [])
    .filter((p) => p.type === 'text')
    .map((p) => String(p.text))
    .join('');
}
