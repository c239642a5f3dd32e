import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fake } from '../helpers/planted-credentials.js';
import { runCliAsync, startCli } from './run-cli.js';

/** `recourse fake-provider` as a real process: its ready line, its log, its exit codes and its shutdown. */
const folder = mkdtempSync(join(tmpdir(), 'recourse-fake-provider-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const scriptFile = (name: string, content: unknown) => {
  const file = join(folder, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const ready = /^listening on http:\/\/127\.0\.0\.1:(\d+)\n/;

async function started(script: unknown) {
  const child = startCli([
    'fake-provider',
    '--port',
    '0',
    '--script',
    scriptFile(`s${Math.random()}.json`, script),
  ]);
  await child.waitFor((out) => ready.test(out));
  const port = Number(ready.exec(child.stdout())![1]);
  return { child, url: `http://127.0.0.1:${port}`, port };
}

describe('recourse fake-provider', () => {
  it('--port 0 picks a free port, prints exactly the ready line, serves the script and exits 0 on SIGTERM', async () => {
    const { child, url, port } = await started({ steps: [{ fault: 'overloaded' }], then: { answer: 'ok' } });
    expect(child.stdout()).toBe(`listening on http://127.0.0.1:${port}\n`);
    expect(port).toBeGreaterThan(0);
    const first = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{"model":"m"}' });
    expect(first.status).toBe(529);
    const second = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{"model":"m"}' });
    expect(await second.json()).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it('an unknown path is a neutral 404 that consumes nothing', async () => {
    const { child, url } = await started({ steps: [{ answer: 'first' }] });
    const missing = await fetch(`${url}/v2/whatever`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { type: 'not_found', message: expect.stringContaining('POST /v2/whatever') as string },
    });
    const answer = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(await answer.json()).toMatchObject({ choices: [{ message: { content: 'first' } }] });
    child.process.kill('SIGINT');
    expect(await child.exited).toBe(0);
  });

  it('SIGINT closes the server with a request still hanging', async () => {
    const { child, url } = await started({ steps: [{ fault: 'hang' }] });
    const hung = fetch(`${url}/v1/responses`, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    await child.waitFor((_, err) => err.includes('"served":"hang"'));
    child.process.kill('SIGINT');
    expect(await child.exited).toBe(0);
    expect(await hung).toBeInstanceOf(Error);
  });

  it('logs every request as a JSON line on stderr with no key, token or key= parameter in it', async () => {
    const secrets = [fake(11, 40), fake(12, 48), fake(13, 39), fake(14, 39)];
    const { child, url } = await started({ steps: [] });
    const headers = {
      authorization: `Bearer ${secrets[0]}`,
      'x-api-key': secrets[1]!,
      'x-goog-api-key': secrets[2]!,
    };
    for (const path of ['/v1/messages', '/v1/chat/completions', '/v1/responses'])
      await fetch(`${url}${path}`, { method: 'POST', headers, body: '{}' });
    // A model list is Gemini's when a Gemini key header comes with it: this one is sent as OpenAI's SDK does.
    await fetch(`${url}/v1/models`, { headers: { authorization: headers.authorization } });
    await fetch(`${url}/v1beta/models/gemini-fake-1:streamGenerateContent?alt=sse&key=${secrets[3]}`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    await child.waitFor((_, err) => err.trim().split('\n').length >= 5);
    child.process.kill('SIGTERM');
    await child.exited;
    const log = child.stderr();
    for (const secret of secrets) expect(log).not.toContain(secret);
    const lines = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.method, l.api, l.served, l.step])).toEqual([
      ['POST', 'anthropic-messages', 'answer', 'then'],
      ['POST', 'openai-chat', 'answer', 'then'],
      ['POST', 'openai-responses', 'answer', 'then'],
      ['GET', 'openai-chat', 'models', null],
      ['POST', 'gemini', 'answer', 'then'],
    ]);
    expect(lines[4]?.path).toBe('/v1beta/models/gemini-fake-1:streamGenerateContent?alt=sse&key=REDACTED');
    expect(lines[4]).toMatchObject({ stream: true, status: 200 });
  });

  it('exits 1 with field-addressed errors for a script that was read and is invalid', async () => {
    const run = await runCliAsync([
      'fake-provider',
      '--script',
      scriptFile('bad.json', { steps: [{ fault: 'melted' }] }),
    ]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      errors: [{ path: '/steps/0/fault', message: expect.stringContaining('melted') as string }],
    });
  });

  it('exits 2 with one line for a script that cannot be read, and for usage errors', async () => {
    for (const [args, message] of [
      [['--script', join(folder, 'missing.json')], /missing\.json/],
      [['--script', scriptFile('not-json.json', '{steps:')], /malformed JSON/],
      [['--script', scriptFile('empty.json', '')], /is empty/],
      [
        ['--script', scriptFile('ok.json', { steps: [] }), '--port', 'eighty'],
        /--port must be a port number/,
      ],
      [
        ['--script', scriptFile('ok2.json', { steps: [] }), '--port', '70000'],
        /--port must be a port number/,
      ],
      [[], /--script/],
    ] as const) {
      const run = await runCliAsync(['fake-provider', ...args]);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      // One line (a missing option also gets commander's help after it).
      expect(run.stderr.split('\n')[0], args.join(' ')).toMatch(message);
      if (args.length > 0) expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('exits 2 when the port is taken', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const run = await runCliAsync([
      'fake-provider',
      '--port',
      String(port),
      '--script',
      scriptFile('ok3.json', { steps: [] }),
    ]);
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `recourse fake-provider: cannot listen on 127.0.0.1:${port}: the port is in use\n`,
    );
  });
});
