import { afterEach } from 'vitest';
import { readScript } from '../../src/fake-provider/script.js';
import {
  startFakeProvider,
  type RequestLogLine,
  type RunningFakeProvider,
} from '../../src/fake-provider/server.js';

const running: RunningFakeProvider[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** Starts the real fake provider in this process on a free port with SCRIPT; closed after each test. */
export async function fakeProvider(script: unknown) {
  const checked = readScript(script);
  if (!checked.ok) throw new Error(`invalid test script: ${JSON.stringify(checked.issues)}`);
  const log: RequestLogLine[] = [];
  const server = await startFakeProvider({ script: checked.script, port: 0, log: (line) => log.push(line) });
  running.push(server);
  return { url: server.url, log, server };
}

/** What CALL throws (it must throw). */
export async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}
