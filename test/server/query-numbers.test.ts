import { describe, expect, it } from 'vitest';
import { call, suiteService } from '../helpers/service.js';

interface Refusal {
  error: { code: string; message: string };
  errors: { path: string; message: string }[];
}

/** `limit` of the lists is a whole number in decimal digits, as the CLI's `--limit` is. */
describe('a list’s limit in the query string', () => {
  const live = suiteService({ webRoot: null });

  it.each(['/v1/routes', '/v1/sessions', '/v1/plans'])(
    '%s refuses a limit in hex, with an exponent, a sign, spaces, a fraction or empty (422 at /limit)',
    async (list) => {
      for (const limit of ['0x10', '1e2', '+5', '%205', '2.0', '', '5abc', '0', '-1']) {
        const answer = await call(live.url, 'viewer', 'GET', `${list}?limit=${limit}`);
        expect(answer.status, `limit=${limit}`).toBe(422);
        const refusal = answer.body as Refusal;
        expect(refusal.errors[0]!.path).toBe('/limit');
        expect(refusal.error.message).not.toMatch(/NaN|Too small/);
      }
      const repeated = await call(live.url, 'viewer', 'GET', `${list}?limit=1&limit=2`);
      expect(repeated.status).toBe(422);
      expect((await call(live.url, 'viewer', 'GET', `${list}?limit=1`)).status).toBe(200);
      expect((await call(live.url, 'viewer', 'GET', `${list}?limit=007`)).status).toBe(200);
    },
  );

  it('names the upper bound of each list', async () => {
    const routes = await call(live.url, 'viewer', 'GET', '/v1/routes?limit=1001');
    expect((routes.body as Refusal).errors[0]!.message).toContain('1 to 1000');
    const plans = await call(live.url, 'viewer', 'GET', '/v1/plans?limit=201');
    expect((plans.body as Refusal).errors[0]!.message).toContain('1 to 200');
  });
});
