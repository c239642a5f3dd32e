import type { FastifyInstance } from 'fastify';
import { errorBody, HttpError } from './http-errors.js';
import { parseJsonBody } from './json-body.js';

/**
 * How a request's body is read, and what a request meets once the server is closing. Bodies are JSON only: a
 * text/plain body (fetch's default for a string) is 415, not a string handed to a schema; JSON is read by
 * `parseJsonBody`, which names a prototype key for what it is. Once closing has begun, a request that still arrives
 * (pipelined, or on a connection busy with another) is told so in the shape of every error, before anything else
 * runs, and its connection is closed (Fastify's own 503 body has another shape). Returns what marks the start of
 * closing.
 */
export function installRequestEdges(app: FastifyInstance): () => void {
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    try {
      refuseContentCoding(request.headers['content-encoding']);
      done(null, parseJsonBody(utf8Text(bytes as Buffer)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  let closing = false;
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    void reply
      .code(503)
      .header('connection', 'close')
      .send(errorBody('closed', 'the server is shutting down: send the request again once it is back'));
  });
  return () => {
    closing = true;
  };
}

/**
 * Bodies are read as sent: a body that says it is compressed (`Content-Encoding: gzip`) would be read as its
 * compressed bytes, or, when the header lies, as JSON it never claimed to be. Either way it is refused as a media
 * type the server does not take (RFC 9110 section 15.5.16), saying which coding it met.
 */
function refuseContentCoding(coding: string | undefined): void {
  if (coding === undefined) return;
  const codings = coding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return;
  throw new HttpError(
    415,
    'unsupported_media_type',
    `the body is sent with Content-Encoding ${JSON.stringify(codings.join(', ').slice(0, 40))}: send it uncompressed`,
  );
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A JSON body is UTF-8 (RFC 8259 section 8.1). Decoded leniently, a Latin-1 `ü` became U+FFFD and was stored
 * as such, whatever the `charset` said: bytes that are not UTF-8 are refused instead, and nothing is changed.
 */
function utf8Text(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'malformed_json', 'the body is not UTF-8: send JSON encoded as UTF-8');
  }
}
