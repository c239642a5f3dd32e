/**
 * A fake model provider on 127.0.0.1, speaking the shape of Anthropic's Messages API. It plays a fixed script to
 * the primary model: 529 overloaded, 529 again, 429 with `Retry-After`, then success; the fallback model always
 * answers. It stands in for the network so the example runs anywhere; nothing here is part of Recourse.
 *
 * The script position survives restarts: every call is appended to a JSON Lines file before it is answered, and
 * the next answer is chosen by how many calls that model has had. The same file is the record a test reads to
 * count calls: a retry that fired twice would show up as an extra line.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const primaryModel = 'claude-sonnet-4-5';
export const fallbackModel = 'claude-haiku-4-5';

/** What the provider saw: one line per call, in order. */
export interface ProviderCall {
  readonly at: string;
  readonly model: string;
  /** The caller's idempotency key: the Recourse attempt (dispatch intent) id. */
  readonly attempt: string;
  /** The 1-based number of this call for this model. */
  readonly call: number;
  readonly status: number;
}

interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

function error(type: string, message: string): unknown {
  return { type: 'error', error: { type, message } };
}

/** The primary model's script, by call number. */
function primaryAnswer(call: number, retryAfterSeconds: number): Answer {
  switch (call) {
    case 1:
    case 2:
      return { status: 529, body: error('overloaded_error', 'Overloaded') };
    case 3:
      return {
        status: 429,
        headers: { 'retry-after': String(retryAfterSeconds) },
        body: error(
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of 50 requests per minute.',
        ),
      };
    default:
      return success(primaryModel);
  }
}

function success(model: string): Answer {
  return {
    status: 200,
    body: {
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: 'The build is fixed: a missing import in src/main.ts.' }],
      stop_reason: 'end_turn',
    },
  };
}

export function readCalls(logFile: string): ProviderCall[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ProviderCall);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export interface FakeProvider {
  /** The base URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startFakeProvider(options: {
  readonly logFile: string;
  readonly retryAfterSeconds: number;
  /** How long each answer takes (0 by default): long enough to kill the orchestrator during an attempt. */
  readonly delayMs?: number;
}): Promise<FakeProvider> {
  const server: Server = createServer((request, response) => {
    void readBody(request).then((text) => {
      let model = '';
      try {
        const requested = (JSON.parse(text) as { model?: unknown }).model;
        model = typeof requested === 'string' ? requested : '';
      } catch {
        // An unreadable body is answered below as a bad request.
      }
      const attempt = String(request.headers['idempotency-key'] ?? '');
      const call = readCalls(options.logFile).filter((c) => c.model === model).length + 1;
      const answer: Answer =
        model === primaryModel
          ? primaryAnswer(call, options.retryAfterSeconds)
          : model === fallbackModel
            ? success(fallbackModel)
            : { status: 400, body: error('invalid_request_error', `unknown model ${JSON.stringify(model)}`) };
      const line: ProviderCall = {
        at: new Date().toISOString(),
        model,
        attempt,
        call,
        status: answer.status,
      };
      // Logged before it is answered: a crash after this line still counts the call as made.
      appendFileSync(options.logFile, `${JSON.stringify(line)}\n`);
      setTimeout(() => {
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(JSON.stringify(answer.body));
      }, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
