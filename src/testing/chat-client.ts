import { callChatApi, type Message } from '@ai-sdk/ui-utils';

/** What the real AI SDK v4 client (`callChatApi`, exactly what `useChat` runs) saw of one request. */
export interface ChatResult {
  message: Message | undefined;
  finishReason: string | undefined;
  usage: unknown;
  headers: Headers | undefined;
  /** The client's error: a non-2xx response (its body as the message) or a `3:` part. */
  error: Error | undefined;
}

export async function chatWithAssistant(input: {
  url: string;
  key: string;
  body: Record<string, unknown>;
}): Promise<ChatResult> {
  const out: ChatResult = {
    message: undefined,
    finishReason: undefined,
    usage: undefined,
    headers: undefined,
    error: undefined,
  };
  try {
    await callChatApi({
      api: input.url,
      body: input.body,
      streamProtocol: 'data',
      credentials: undefined,
      headers: { Authorization: `Bearer ${input.key}` },
      abortController: () => null,
      restoreMessagesOnFailure: () => {},
      onResponse: (response) => {
        out.headers = response.headers;
      },
      onUpdate: ({ message }) => {
        out.message = message;
      },
      onFinish: (message, { finishReason, usage }) => {
        out.message = message;
        out.finishReason = finishReason;
        out.usage = usage;
      },
      onToolCall: undefined,
      generateId: () => `gen_${Math.random().toString(36).slice(2)}`,
      fetch: undefined,
      lastMessage: undefined,
      requestType: 'generate',
    });
  } catch (error) {
    out.error = error as Error;
  }
  return out;
}
