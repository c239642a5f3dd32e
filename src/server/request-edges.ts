import type { FastifyInstance } from 'fastify';
import { errorBody } from './http-errors.js';
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
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      done(null, parseJsonBody(text as string));
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
