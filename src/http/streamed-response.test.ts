import net from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { streamedResponse } from './streamed-response.ts';

/** The raw bytes of one HTTP/1.1 exchange, as they arrive, so the chunks of the body can be seen. */
function rawRequest(port: number, path: string): { received: () => string; ended: Promise<string> } {
  let text = '';
  const socket = net.connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  socket.on('data', (data: string) => {
    text += data;
  });
  const ended = new Promise<string>((resolve, reject) => {
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  return { received: () => text, ended };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe('a streamed response on Node', () => {
  let server: ServerType | undefined;
  afterEach(() => {
    server?.close();
    server = undefined;
  });

  it('sends what one turn of the event loop wrote as one chunk, and later turns as they come', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const app = new Hono();
    app.get('/stream', (c) =>
      streamedResponse(
        c,
        { 'Content-Type': 'text/plain' },
        async (sink) => {
          sink.write('0:"a"\n');
          sink.write('');
          await Promise.resolve();
          sink.write('0:"b"\n');
          // Held until the reader has the first chunk: it must not wait for the end of the answer.
          await released;
          sink.write('0:"c"\n');
          sink.write('d:{}\n');
        },
        () => {},
      ),
    );
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    });
    const exchange = rawRequest(port, '/stream');
    await until(() => exchange.received().includes('0:"b"'));
    const first = exchange.received();
    expect(first.slice(first.indexOf('\r\n\r\n') + 4)).toBe('c\r\n0:"a"\n0:"b"\n\r\n');
    release();
    const whole = await exchange.ended;
    expect(whole.slice(whole.indexOf('\r\n\r\n') + 4)).toBe(
      'c\r\n0:"a"\n0:"b"\n\r\nb\r\n0:"c"\nd:{}\n\r\n0\r\n\r\n',
    );
  });
});
