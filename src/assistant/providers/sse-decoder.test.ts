import { describe, expect, it } from 'vitest';
import { SseDecoder } from './sse-decoder.ts';

function decode(...chunks: string[]): string[] {
  const decoder = new SseDecoder();
  const out: string[] = [];
  for (const chunk of chunks) decoder.push(new TextEncoder().encode(chunk), (data) => out.push(data));
  decoder.end((data) => out.push(data));
  return out;
}

describe('SseDecoder', () => {
  it('hands on each event’s data, joining data lines with a newline', () => {
    expect(decode('data: one\n\ndata: two\ndata: lines\n\n')).toEqual(['one', 'two\nlines']);
  });

  it('reads LF, CR and CRLF line ends, and a CRLF split between two chunks as one line end', () => {
    expect(decode('data: a\r\n\r\ndata: b\r\rdata: c\n\n')).toEqual(['a', 'b', 'c']);
    // The package's parser would see an empty line after "one" here and dispatch early.
    expect(decode('data: one\r', '\ndata: two\r\n\r\n')).toEqual(['one\ntwo']);
  });

  it('ignores comments, other fields and events without data; strips one space after the colon', () => {
    expect(
      decode(': ping\n\nevent: x\nid: 7\nretry: 5\n\ndata:tight\n\ndata:  two spaces\n\ndata\n\n'),
    ).toEqual(['tight', ' two spaces', '']);
  });

  it('drops a leading byte-order mark and decodes characters split between chunks', () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: 日本🚀\n\n');
    const decoder = new SseDecoder();
    const out: string[] = [];
    for (const byte of bytes) decoder.push(Uint8Array.of(byte), (data) => out.push(data));
    decoder.end((data) => out.push(data));
    expect(out).toEqual(['日本🚀']);
  });

  it('dispatches an unterminated last event when the body ends', () => {
    expect(decode('data: [DONE]')).toEqual(['[DONE]']);
    expect(decode('data: x\n')).toEqual(['x']);
  });
});
