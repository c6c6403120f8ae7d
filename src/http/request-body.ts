import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ZodType, ZodTypeDef } from 'zod';
import { DocentError } from './errors.ts';
import { mayHoldLoneSurrogates, replaceLoneSurrogates } from './lone-surrogates.ts';
import { nodeBindings, requestHeader } from './node-request.ts';
import { refuseNulCharacters } from './nul-characters.ts';
import { zodDetails } from './validation.ts';

/**
 * Bytes of a refused upload still read, and thrown away, after the 413. A client that is still sending
 * when the server answers (any that streams its body) would otherwise have its connection reset under it
 * and see `EPIPE` or `ECONNRESET` instead of the 413. Past this, or `MAX_DISCARD_MS`, the 413 is sent
 * at once and the connection closed.
 */
export const MAX_DISCARDED_UPLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_DISCARD_MS = 10_000;

/**
 * The 413 for a body past `maxBytes`; `keepOpen` when the rest of the body has been read (see
 * `tooLarge`), so the connection can serve the next request. Otherwise it closes after the answer.
 */
export function payloadTooLarge(maxBytes: number, keepOpen = false): DocentError {
  return new DocentError('payload_too_large', `Request body exceeds ${maxBytes} bytes`, {
    ...(keepOpen ? {} : { headers: { Connection: 'close' } }),
  });
}

/**
 * The 413 for `incoming`. A body declared too large is refused at once, before it is read, and the
 * connection closed: the client said how much it would send, and one that waits for an answer before
 * sending (or never sends) must not hold the request for MAX_DISCARD_MS. A body that grew past the limit
 * as it was sent is read to its end and dropped first (bounded, see `MAX_DISCARDED_UPLOAD_BYTES`): the
 * answer waits for it, as @hono/node-server cuts a connection whose request is still arriving 500 ms after
 * the response ends, so a client still sending then saw `EPIPE`.
 */
async function tooLarge(maxBytes: number, incoming: IncomingMessage | undefined): Promise<DocentError> {
  if (incoming === undefined || Number(incoming.headers['content-length']) > maxBytes)
    return payloadTooLarge(maxBytes);
  return payloadTooLarge(maxBytes, await discardRest(incoming));
}

/** Reads and drops what is left of `incoming`'s body, within the bounds; false when it did not. */
function discardRest(incoming: IncomingMessage): Promise<boolean> {
  if (incoming.complete) return Promise.resolve(true);
  if (incoming.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (drained: boolean): void => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      resolve(drained);
    };
    const onEnd = (): void => finish(true);
    const onClose = (): void => finish(incoming.complete);
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > MAX_DISCARDED_UPLOAD_BYTES) finish(false);
    };
    const timer = setTimeout(() => finish(false), MAX_DISCARD_MS);
    timer.unref();
    // Whoever read the body before has given up on it: in limitBody's path, the web stream Hono read
    // through, whose listener would pause the request again after every chunk.
    incoming.removeAllListeners('data');
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('close', onClose);
    incoming.resume();
  });
}

/**
 * For routes whose body is read by Hono (`c.req.parseBody()`, the `json` validator): a body declared or
 * sent past `maxBytes` is refused with 413 before the route reads it, so no client can make the server
 * buffer an upload of any size.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: async (c) => {
      throw await tooLarge(maxBytes, nodeBindings(c)?.incoming);
    },
  });
}

/**
 * The request body as UTF-8 text, refused with 413 past `maxBytes` (declared or actually sent).
 *
 * On @hono/node-server the body is read straight from the Node request. Going through `c.req` makes
 * the server build a full WHATWG `Request` (a web stream over the body and an `AbortController`) for
 * every request, which showed up as several per cent of the assistant route's CPU.
 */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  const node = nodeBindings(c);
  if (Number(requestHeader(c, 'Content-Length')) > maxBytes) throw await tooLarge(maxBytes, node?.incoming);
  const bytes = node ? await readNode(node.incoming, maxBytes) : await readWeb(c.req.raw.body, maxBytes);
  const text = bytes.toString('utf8');
  // As the Fetch standard's `json()` does: a byte order mark is not part of the JSON.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses the body as JSON; a SyntaxError becomes the standard 400 (http/error-handler.ts). */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(c, maxBytes);
  const value: unknown = JSON.parse(text);
  // JSON text can only hold U+0000 or a lone surrogate escaped; a body without the escape needs no walk.
  if (text.includes('\\u0000')) refuseNulCharacters(value);
  return mayHoldLoneSurrogates(text) ? replaceLoneSurrogates(value) : value;
}

/** 415 unless the body is sent as JSON: JSON text sent as anything else (`{}` as text/plain) is not read. */
export function requireJsonBody(c: Context): void {
  if (!/^application\/json\b/i.test(requestHeader(c, 'Content-Type') ?? ''))
    throw new DocentError('unsupported_media_type', 'Send the request body as application/json');
}

/**
 * A JSON body checked against `schema`: 415 unless it is sent as JSON, 413 past `maxBytes`, 400 with
 * the problems listed when it does not parse or fit.
 */
export async function readAssistantBody<T>(
  c: Context,
  schema: ZodType<T, ZodTypeDef, unknown>,
  maxBytes: number,
): Promise<T> {
  requireJsonBody(c);
  const parsed = schema.safeParse(await readJsonBody(c, maxBytes));
  if (!parsed.success) {
    throw new DocentError('invalid_request', 'Invalid request body', { details: zodDetails(parsed.error) });
  }
  return parsed.data;
}

function readNode(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onFailure);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        void tooLarge(maxBytes, incoming).then(reject);
      } else chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onFailure = (): void => {
      stop();
      reject(new DocentError('invalid_request', 'The request body ended before it was complete'));
    };
    const onClose = (): void => {
      if (!incoming.complete) onFailure();
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onFailure);
    incoming.on('close', onClose);
  });
}

async function readWeb(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
