import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCliAsync } from './run-cli.js';

// A route or profile ID is a path segment: `..` resolved to `/v1/` (`routes show ..` asked GET /v1/, `profiles
// delete ..` sent DELETE /v1/, `routes retry ..` would POST /v1/actions), `.` to the collection. Such an ID is a
// usage error before any request, as PLAN_ID already was.

describe('route and profile IDs', () => {
  it.each([
    ['routes', 'show', '..'],
    ['routes', 'retry', '..'],
    ['routes', 'cancel', '.', '--generation', '1'],
    ['profiles', 'get', '.'],
    ['profiles', 'delete', '..'],
  ])('%s %s %s: exit 2 naming the ID, and nothing is sent', async (...args) => {
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(`${request.method} ${request.url}`);
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = await runCliAsync([...args, '--server', url], { RECOURSE_TOKEN: 'token-1' });
      expect(run).toMatchObject({
        status: 2,
        stderr: `recourse ${args[0]} ${args[1]}: ID must be 1 to 128 letters, digits and . _ : @ / -, starting with a letter or digit (got ${JSON.stringify(args[2])})\n`,
      });
      expect(paths).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
