import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlanService } from '../../src/app/index.js';
import { EngineInputError } from '../../src/engine/index.js';
import { RecourseError } from '../../src/core/index.js';

/**
 * A stand-in for `recourse serve` (built in parallel on main) until it exists: a real node:http server that answers
 * the plan endpoints from a real PlanService, with the same paths, bearer auth and error bodies
 * (`{"error": {code, message, issues?, reason?}}`; 400 invalid input, 404 not found, 409 refused, 401 no token).
 */
export async function startPlanServer(
  service: PlanService,
  token: string | null,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    handle(service, token, req, res).catch((error: unknown) => {
      send(res, 500, { error: { code: 'internal', message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

async function handle(
  service: PlanService,
  token: string | null,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (token !== null && req.headers.authorization !== `Bearer ${token}`) {
    return send(res, 401, { error: { code: 'unauthorized', message: 'a valid bearer token is required' } });
  }
  const match = /^\/v1\/plans\/([^/]+)(\/errors|\/decision|\/actions)?$/.exec(req.url ?? '');
  if (match === null) return send(res, 404, { error: { code: 'not_found', message: 'no such endpoint' } });
  const id = decodeURIComponent(match[1]!);
  const route = `${req.method} ${match[2] ?? ''}`;
  try {
    const answer =
      route === 'PUT '
        ? await service.configure(id, await bodyOf(req))
        : route === 'POST /errors'
          ? await service.recordError(id, await bodyOf(req))
          : route === 'GET /errors'
            ? await service.errors(id)
            : route === 'GET /decision'
              ? await service.decision(id)
              : route === 'POST /actions'
                ? await service.act(id, await bodyOf(req))
                : null;
    if (answer === null) return send(res, 405, { error: { code: 'method_not_allowed', message: route } });
    if ('status' in answer && answer.status === 'refused') {
      return send(res, 409, { error: { code: 'refused', reason: answer.reason, message: answer.message } });
    }
    return send(res, 200, answer);
  } catch (error) {
    if (error instanceof EngineInputError) {
      return send(res, 400, { error: { code: error.code, message: error.message, issues: error.issues } });
    }
    if (error instanceof RecourseError && error.code === 'not_found') {
      return send(res, 404, { error: { code: error.code, message: error.message } });
    }
    throw error;
  }
}
