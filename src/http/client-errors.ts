/**
 * Requests that Node's HTTP parser refuses before Fastify sees them (headers too large,
 * a malformed Content-Length, a request line that is not HTTP, a request that did not
 * arrive in time): the server's `clientError` event, answered with a raw HTTP/1.1
 * problem+json response that carries the same headers as every other response, then
 * the connection is closed (the parser cannot go on after such an error). Also the
 * `checkExpectation` event, which Node would answer with an empty 417.
 * Decisions in docs/operations.md, "One error path".
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config.ts';
import type { ErrorCode } from '../errors/codes.ts';
import { ERROR_STATUS, problem, PROBLEM_CONTENT_TYPE } from './errors.ts';
import { conventionHeaders, requestIdOf } from './response-conventions.ts';

interface ClientProblem {
  code: ErrorCode;
  detail: string;
}

/** What a parser error code answers (llhttp's HPE_* codes and Node's request timeout). */
function clientProblem(code: string, limits: HttpLimits): ClientProblem {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        detail: `Request headers are too large: at most ${limits.maxHeaderBytes} bytes in all.`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', detail: 'Chunk extensions of the request body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        code: 'request_timeout',
        detail: `The request did not arrive in time: headers are read for at most ${seconds(limits.headersTimeoutMs)}, the whole request for at most ${seconds(limits.requestTimeoutMs)}.`,
      };
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { code: 'invalid_request', detail: 'The Content-Length header is not a valid length.' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return {
        code: 'invalid_request',
        detail: 'The request has more than one Content-Length, or Content-Length together with Transfer-Encoding.',
      };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return {
        code: 'invalid_request',
        detail: 'The Transfer-Encoding header is not valid; send Content-Length or Transfer-Encoding: chunked alone.',
      };
    case 'HPE_INVALID_METHOD':
      return { code: 'invalid_request', detail: 'The request method is not valid.' };
    default:
      return { code: 'invalid_request', detail: 'The request is not valid HTTP/1.1.' };
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A problem answer's headers, as a flat name/value list, on a connection closed after it. */
function closingProblemHeaders(body: string, requestId: string): string[] {
  return [
    'content-type',
    PROBLEM_CONTENT_TYPE,
    'content-length',
    String(Buffer.byteLength(body)),
    ...conventionHeaders(requestId),
    'connection',
    'close',
  ];
}

/** The whole response as written to the socket. */
function rawProblemResponse(code: ErrorCode, detail: string, requestId: string): string {
  const status = ERROR_STATUS[code];
  const body = JSON.stringify(problem(code, detail));
  const headers = closingProblemHeaders(body, requestId);
  const lines = [];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

type ClientErrorLog = (fields: Record<string, unknown>, message: string) => void;

/** Fastify's `clientErrorHandler` option. */
export function createClientErrorHandler(limits: HttpLimits, log: ClientErrorLog) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // As Node itself does: answer only if no response has started on this connection.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { code: problemCode, detail } = clientProblem(error.code ?? '', limits);
      const status = ERROR_STATUS[problemCode];
      const requestId = randomUUID();
      log(
        { requestId, code: error.code, status, remoteAddress: socket.remoteAddress },
        'request refused by the HTTP parser',
      );
      socket.write(rawProblemResponse(problemCode, detail, requestId));
    }
    socket.destroy();
  };
}

/** The server's `checkExpectation` event: an `Expect` other than 100-continue. */
export function answerUnmetExpectation(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify(
    problem('expectation_unsupported', 'The only supported Expect header is "Expect: 100-continue".'),
  );
  res.writeHead(417, closingProblemHeaders(body, requestIdOf(req)));
  res.end(body);
}
