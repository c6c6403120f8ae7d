import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { escapeControlCharacters, guardTerminalOutput } from './terminal-output.ts';

describe('CLI output', () => {
  it('shows control characters from docs content as escapes, keeping newlines, tabs and other text', () => {
    const title = 'Red \u001b[31mRED\u001b]0;PWNED\u0007 \u009b2K\r done\n\tnext é 日本';
    expect(escapeControlCharacters(title)).toBe(
      'Red \\u001b[31mRED\\u001b]0;PWNED\\u0007 \\u009b2K\\u000d done\n\tnext é 日本',
    );
    // JSON output reads back as the same text.
    const json = JSON.stringify({ title });
    expect(JSON.parse(escapeControlCharacters(json))).toEqual({ title });
  });

  it('guards every string written to the stream', async () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    const chunks: string[] = [];
    (stream as unknown as PassThrough).on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    guardTerminalOutput(stream);
    stream.write('warning: bad\u001b[2Kname.md: broken\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks.join('')).toBe('warning: bad\\u001b[2Kname.md: broken\n');
  });

  it('ends the process quietly when the reader of its output is gone (EPIPE), and rethrows the rest', () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    const exits: number[] = [];
    guardTerminalOutput(stream, (code) => exits.push(code));
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    stream.emit('error', epipe);
    expect(exits).toEqual([0]);
    const other = Object.assign(new Error('write EIO'), { code: 'EIO' });
    expect(() => stream.emit('error', other)).toThrow('write EIO');
  });
});
