import { describe, expect, it } from 'vitest';
import { call, startTestService } from '../helpers/service.js';

/** `/metrics` over HTTP: Prometheus text for a reader, and 503 (not a 500) when the store cannot be read. */
describe('GET /metrics', () => {
  it('serves the exposition text to a reader; answers 503 when the gauges cannot be read from the store', async () => {
    const started = await startTestService();
    const base = started.service.url;
    try {
      const ok = await fetch(`${base}/metrics`, {
        headers: { authorization: 'Bearer viewer-token-0123456789abcdef' },
      });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toMatch(/^recourse_routes\{state="active"\} 0$/m);
      expect((await call(base, null, 'GET', '/metrics')).status).toBe(401);
      // The store goes away under the server (a disk unmounted, say): the scrape fails cleanly.
      await started.service.recourse.store.close();
      const down = await call(base, 'viewer', 'GET', '/metrics');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ error: { code: 'not_ready' } });
    } finally {
      await started.stop().catch(() => undefined);
    }
  });
});
