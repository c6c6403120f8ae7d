import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import { newId } from '../storage/ids.ts';
import { DocentError, type ErrorCode, errorBody } from './errors.ts';

/** Node's parser errors that have an answer of their own; any other parse error is a 400. */
const CODE_OF_PARSER_ERROR: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
};

/**
 * Requests Node's HTTP parser refuses before the app sees them (a request line or headers over Node's
 * 16 KB, a malformed request, a body framed by both Content-Length and Transfer-Encoding) get the
 * standard JSON error body with a request id, like every other error, instead of Node's bare status line.
 */
export function answerClientErrors(server: Server): void {
  // An `Expect:` other than 100-continue: Node answered a bare 417 with no body (it emits this event
  // instead of the request when someone listens).
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    const expectation = String(request.headers.expect ?? '').slice(0, 100);
    answerError(
      response,
      new DocentError('expectation_failed', `Expect: ${expectation} is not supported (only 100-continue)`),
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client reset, or one already answering: nothing can be written (Node's own rule).
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code = CODE_OF_PARSER_ERROR[error.code ?? ''] ?? 'invalid_request';
    const refused = new DocentError(
      code,
      `The request could not be read as HTTP (${error.code ?? 'parse error'})`,
    );
    const { headers, body } = refusal(refused);
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(
      `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status] ?? 'Bad Request'}\r\n${head.join('')}\r\n${body}`,
    );
  });
}

/**
 * What @hono/node-server answers when it cannot make a Request of what Node parsed (its RequestError: a
 * Host header that is no host name, a backslash in the path, a missing Host) or when the app's fetch
 * fails outside Hono's own error handling: the standard JSON error with a request id, as above, instead
 * of an empty text/plain 400 or 500.
 */
export function answerUnreadableRequest(error: unknown): Response {
  const refused =
    error instanceof RequestError
      ? new DocentError('invalid_request', `The request could not be read: ${error.message}`)
      : new DocentError('internal_error', 'Internal server error');
  const requestId = newId('req');
  return new Response(JSON.stringify(errorBody(refused, requestId)), {
    status: refused.status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId },
  });
}

/**
 * An HTTP/1.1 request without a Host header (RFC 9112 requires one): refused with the standard JSON
 * error and a request id, and the connection closed. Node's own check (`requireHostHeader`, turned off
 * where the server is made) answered a bare 400 with no body. True when it answered.
 */
export function refuseMissingHost(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.headers.host !== undefined || request.httpVersion !== '1.1') return false;
  answerError(response, new DocentError('invalid_request', 'The request has no Host header'));
  return true;
}

/** The standard JSON error with a new request id, on a response the app never saw; the connection closes. */
function answerError(response: ServerResponse, refused: DocentError): void {
  const { headers, body } = refusal(refused);
  response.writeHead(refused.status, headers);
  response.end(body);
}

/** A refusal outside the app: the standard JSON error body with a new request id, closing the connection. */
function refusal(refused: DocentError): { headers: Record<string, string>; body: string } {
  const requestId = newId('req');
  const body = JSON.stringify(errorBody(refused, requestId));
  return {
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      Connection: 'close',
    },
    body,
  };
}
