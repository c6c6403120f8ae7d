import { describe, expect, it } from 'vitest';
import { readEvents } from './server-sent-events.ts';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function eventsOf(chunks: string[]): Promise<string[]> {
  const seen: string[] = [];
  await readEvents(streamOf(chunks), (data) => seen.push(data));
  return seen;
}

describe('readEvents (the widget’s server-sent events)', () => {
  it('reads each event’s data, however the stream is cut into chunks', async () => {
    const wire =
      'data: {"type":"start"}\n\n: a comment\n\ndata: {"type":"text-delta","delta":"é ✓"}\n\ndata: [DONE]\n\n';
    const expected = ['{"type":"start"}', '{"type":"text-delta","delta":"é ✓"}', '[DONE]'];
    expect(await eventsOf([wire])).toEqual(expected);
    // One byte at a time: lines, events and a two-byte character split across chunks.
    const bytes = new TextEncoder().encode(wire);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    const seen: string[] = [];
    await readEvents(stream, (data) => seen.push(data));
    expect(seen).toEqual(expected);
  });

  it('joins data lines, reads CRLF, skips other fields, and drops an event cut short', async () => {
    expect(
      await eventsOf(['id: 1\r\nevent: x\r\ndata:a\r', '\ndata: b\r\n\r\n', 'retry: 5\n\n', 'data: cut']),
    ).toEqual(['a\nb']);
  });
});
