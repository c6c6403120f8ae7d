/**
 * Differential testing of Docent's stream decoders against the provider packages: the same response
 * bytes, cut into the same chunks, go through the package's own `doStream` (a `fetch` that answers with
 * them) and through `SseDecoder` + a `PartDecoder`; both outputs are then compared part by part.
 */
import type { LanguageModelV1, LanguageModelV1StreamPart } from '@ai-sdk/provider';
import type { ProviderAccess } from '../../../config.ts';
import { SseDecoder } from '../sse-decoder.ts';
import type { PartDecoder } from '../stream-decoding.ts';

/** The parts a stream produced, and whether reading it failed after them (the transform threw). */
export interface DecodedStream {
  parts: unknown[];
  failed: boolean;
}

export type ModelFactory = (
  modelId: string,
  access: ProviderAccess,
  fetch: typeof globalThis.fetch,
) => LanguageModelV1;

/** What the package makes of `chunks` as a successful streamed response. */
export async function packageDecoding(
  create: ModelFactory,
  modelId: string,
  chunks: readonly Uint8Array[],
): Promise<DecodedStream> {
  const fetch: typeof globalThis.fetch = async () =>
    new Response(chunkStream(chunks), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  const model = create(modelId, { apiKey: 'test-key', baseUrl: 'http://127.0.0.1:9/v1' }, fetch);
  const { stream } = await model.doStream({
    inputFormat: 'messages',
    mode: { type: 'regular' },
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  });
  const parts: unknown[] = [];
  try {
    for await (const part of stream) parts.push(normalize(part));
  } catch {
    return { parts, failed: true };
  }
  return { parts, failed: false };
}

/** What Docent's decoder makes of the same chunks. */
export function docentDecoding(decoder: PartDecoder, chunks: readonly Uint8Array[]): DecodedStream {
  const sse = new SseDecoder();
  const parts: unknown[] = [];
  const emit = (part: LanguageModelV1StreamPart): void => {
    parts.push(normalize(part));
  };
  const onData = (data: string): void => decoder.event(data, emit);
  try {
    for (const chunk of chunks) sse.push(chunk, onData);
    sse.end(onData);
    decoder.end(emit);
  } catch {
    return { parts, failed: true };
  }
  return { parts, failed: false };
}

/** Errors compare by name (the classes are the same; their messages and causes need not be). */
function normalize(part: LanguageModelV1StreamPart): unknown {
  if (part.type === 'error' && part.error instanceof Error) return { type: 'error', error: part.error.name };
  return part;
}

function chunkStream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/**
 * The ways a response is cut into chunks in these tests. Never between the CR and LF of a line break:
 * there the package's parser sees two line breaks and Docent's one, on purpose (sse-decoder.ts), which
 * changes the outcome for an event of several `data:` lines (sse-decoder.test.ts covers that cut).
 */
export function chunkings(text: string, options: { everyByte?: boolean } = {}): Uint8Array[][] {
  const bytes = new TextEncoder().encode(text);
  const splitsCrlf = (at: number): boolean => bytes[at - 1] === 13 && bytes[at] === 10;
  const out: Uint8Array[][] = [[bytes]];
  // One event per chunk, as a provider flushes them.
  out.push(
    text
      .split(/(?<=\n\n|\r\n\r\n)/)
      .filter((piece) => piece !== '')
      .map((piece) => new TextEncoder().encode(piece)),
  );
  // Pseudo-random sizes from 1 to 40 bytes, the same every run.
  let seed = 7;
  const random: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    let size = 1 + (seed % 40);
    if (splitsCrlf(at + size)) size++;
    random.push(bytes.subarray(at, at + size));
    at += size;
  }
  out.push(random);
  // Two chunks, cut at every byte: every place a line, an event or a UTF-8 character can be split.
  if (options.everyByte)
    for (let cut = 1; cut < bytes.length; cut++)
      if (!splitsCrlf(cut)) out.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  return out;
}
