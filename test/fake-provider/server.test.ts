import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readScript } from '../../src/fake-provider/script.js';
import { startFakeProvider, type RequestLogLine } from '../../src/fake-provider/server.js';
import { fakeProvider } from './harness.js';

/** The fake provider's routing and connection behaviour, over real HTTP with fetch and node:http. */
describe('fake provider server', () => {
  it('answers probes and model lists in each API shape, and 404s anything else, consuming nothing', async () => {
    const { url, log } = await fakeProvider({ steps: [{ answer: 'only step' }] });
    expect(await (await fetch(url)).json()).toEqual({ status: 'ok', service: 'recourse fake-provider' });
    expect((await fetch(`${url}/v1`, { method: 'HEAD' })).status).toBe(200);
    const anthropic = await fetch(`${url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } });
    expect(await anthropic.json()).toMatchObject({
      data: [
        { type: 'model', id: 'claude-fake-1' },
        { type: 'model', id: 'claude-fake-1-mini' },
      ],
      has_more: false,
    });
    expect(await (await fetch(`${url}/models/gpt-x`)).json()).toMatchObject({ id: 'gpt-x', object: 'model' });
    expect(await (await fetch(`${url}/v1beta/models/gemini-x`)).json()).toMatchObject({
      name: 'models/gemini-x',
    });
    for (const [method, path] of [
      ['GET', '/v1/messages'],
      ['POST', '/v1/embeddings'],
      ['DELETE', '/v1/models'],
      ['POST', '/v1beta/models/m:embedContent'],
    ]) {
      const response = await fetch(`${url}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toMatchObject({ error: { type: 'not_found' } });
    }
    // Gemini without the version prefix still generates, and takes the one step.
    const generated = await fetch(`${url}/models/gemini-x:generateContent`, { method: 'POST', body: '{}' });
    expect(await generated.json()).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'only step' }] } }],
    });
    expect(log.filter((l) => l.step !== null).map((l) => l.step)).toEqual(['steps/0']);
  });

  it('a generation request that is not a JSON object, or is too large, is refused in the API shape and consumes no step', async () => {
    const { url, log } = await fakeProvider({ steps: [{ answer: 'only step' }] });
    const anthropic = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{bad' });
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const openai = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '[1,2]' });
    expect(openai.status).toBe(400);
    expect(await openai.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    const gemini = await fetch(`${url}/v1beta/models/g:generateContent`, { method: 'POST', body: '' });
    expect(gemini.status).toBe(400);
    expect(await gemini.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const huge = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      body: `{"x":"${'a'.repeat(33 * 1024 * 1024)}"}`,
    });
    expect(huge.status).toBe(413);
    expect(log.map((l) => l.served)).toEqual([
      'malformed_request',
      'malformed_request',
      'malformed_request',
      'too_large',
    ]);
    // The script's one step is still there for the first readable request.
    const answered = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      body: '{"model":"m","max_tokens":5}',
    });
    expect(await answered.json()).toMatchObject({ content: [{ type: 'text', text: 'only step' }] });
  });

  it('hang closes the connection without an answer once its time has passed', async () => {
    const checked = readScript({ steps: [{ fault: 'hang' }] });
    if (!checked.ok) throw new Error('script');
    const log: RequestLogLine[] = [];
    // A short hang for the test; the command's is ten minutes.
    const server = await startFakeProvider({
      script: checked.script,
      port: 0,
      log: (l) => log.push(l),
      hangMs: 200,
    });
    try {
      const outcome = await new Promise<string>((resolve) => {
        const req = request(`${server.url}/v1/messages`, { method: 'POST' }, () => resolve('answered'));
        req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        req.end('{}');
      });
      expect(outcome).toBe('ECONNRESET');
      expect(log).toMatchObject([{ served: 'hang', status: null }]);
    } finally {
      await server.close();
    }
  });
});
