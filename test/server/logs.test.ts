import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, policy, startTestService, tokens } from '../helpers/service.js';
import { leaksIn, planted } from '../helpers/planted-credentials.js';
import { redactSecrets } from '../../src/core/index.js';

/** The service's structured log names requests by route template and status: no token, no evidence, no secret. */
describe('the service log', () => {
  it('[DAT-13] holds no token, no query string, no evidence text and no planted secret', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const secret = 'sk-ant-api03-' + 'Q'.repeat(40);
    const started = await startTestService({ logLevel: 'debug', logDestination: sink, ackTimeoutMs: 60_000 });
    const base = started.service.url;
    try {
      await call(base, 'admin', 'PUT', '/v1/profiles/logged', {
        name: 'Logged',
        candidates: [{ profile_id: 'only', policy: policy(2, 600, 'stop') }],
      });
      const route = (
        await call(base, 'adapter', 'POST', '/v1/routes', { route_id: 'logged-1', profile_id: 'logged' })
      ).body as RouteDocument;
      await call(base, 'adapter', 'POST', `/v1/routes/logged-1/dispatches/${route.dispatch!.id}/ack`);
      await call(base, 'adapter', 'POST', '/v1/routes/logged-1/evidence', {
        generation: 1,
        invocation_id: route.dispatch!.id,
        replay: {},
        envelope: {
          kind: 'http',
          status: 401,
          body: `{"error":{"message":"invalid x-api-key ${secret} for the unique-evidence-marker"}}`,
        },
      });
      await fetch(`${base}/?token=${tokens.viewer}`, { redirect: 'manual' });
      await fetch(`${base}/v1/routes?cursor=query-marker`, {
        headers: { authorization: `Bearer ${tokens.viewer}` },
      });
      await call(base, null, 'GET', '/v1/me', undefined, { authorization: 'Bearer not-a-real-token-marker' });
      await started.service.recourse.engine.idle();
    } finally {
      await started.stop();
    }
    const log = lines.join('');
    expect(log).toContain('"route":"/v1/routes/:id/evidence"');
    for (const forbidden of [
      ...Object.values(tokens),
      secret,
      'unique-evidence-marker',
      'query-marker',
      'not-a-real-token-marker',
      'x-api-key',
    ]) {
      expect(log, forbidden).not.toContain(forbidden);
    }
  });

  it('[DAT-13] error replies quote no planted secret known by its shape, sent as a field name, a route id or a path', async () => {
    // Alone, a key without its key word (32 hex, a password) cannot be told from an id; a reply quotes what the client
    // sent redacted as any text is, so the check covers the formats the redactor knows out of context.
    const shaped = planted.filter((p) => leaksIn(redactSecrets(p.secret)).length === 0);
    expect(shaped.length).toBeGreaterThanOrEqual(20);
    const started = await startTestService({ ackTimeoutMs: 60_000 });
    const base = started.service.url;
    const replies: unknown[] = [];
    try {
      for (const { secret } of shaped) {
        const segment = encodeURIComponent(secret);
        const envelope = { kind: 'stderr', text: 'x' };
        replies.push(
          (await call(base, 'adapter', 'POST', '/v1/classify', { envelope, [secret]: 1 })).body,
          (await call(base, 'adapter', 'POST', `/v1/routes/${segment}/evidence`, { generation: 1, envelope }))
            .body,
          (await call(base, 'viewer', 'GET', `/v1/routes/${segment}`)).body,
          (await call(base, 'viewer', 'GET', `/v1/no-such-endpoint/${segment}`)).body,
        );
      }
    } finally {
      await started.stop();
    }
    // Each was refused (else there would be no message to quote a secret).
    expect(replies.every((r) => typeof (r as { error?: unknown }).error === 'object')).toBe(true);
    expect(leaksIn(JSON.stringify(replies))).toEqual([]);
  });
});
