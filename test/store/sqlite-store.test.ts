import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLogContract } from './event-log-contract.js';
import { storeContract } from './store-contract.js';
import { transcriptContract } from './transcript-contract.js';
import { appendReplayEvent, openReplayEvidence } from '../../src/core/index.js';
import { openSqliteDatabase, openSqliteStore } from '../../src/store/index.js';
import { t0 } from '../core/route/route-fixtures.js';

const folders: string[] = [];
afterAll(async () => {
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

/** A real SQLite file (WAL) in a fresh temporary folder; `open` opens that same file again. */
async function freshSqlite(file = 'recourse.db') {
  const folder = await mkdtemp(join(tmpdir(), 'recourse-store-'));
  folders.push(folder);
  const path = join(folder, file);
  return {
    folder,
    path,
    open: async () => {
      const store = openSqliteStore({ file: path });
      await store.migrate();
      return store;
    },
  };
}

storeContract('SQLite file (better-sqlite3, WAL)', { fresh: freshSqlite });
transcriptContract('SQLite file', async () => {
  const { path } = await freshSqlite();
  let n = 0;
  const db = openSqliteDatabase({ file: path, transcriptClock: { now: () => ++n, newId: () => `m${n}` } });
  await db.store.migrate();
  return db;
});

eventLogContract('SQLite file', async () => {
  const { path } = await freshSqlite();
  const db = openSqliteDatabase({ file: path });
  await db.store.migrate();
  return db;
});

describe('SQLite adapter', () => {
  it('creates the database folder and applies the numbered migrations on first open', async () => {
    const { folder } = await freshSqlite();
    const store = openSqliteStore({ file: join(folder, 'nested', '.recourse', 'db.sqlite') });
    try {
      expect(await store.migrate()).toEqual([
        '0001-initial',
        '0002-transcript',
        '0003-attempt-notes',
        '0004-route-payload',
        '0005-events',
        '0006-plans',
        '0007-attempt-delay-source',
        '0008-route-leases',
        '0009-retired-ids',
      ]);
    } finally {
      await store.close();
    }
  });

  it('a database a newer Recourse migrated further is refused with what happened, not as "corrupted migrations"', async () => {
    const { path, open } = await freshSqlite();
    await (await open()).close();
    const raw = new BetterSqlite3(path);
    raw.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('0099-future', '2030-01-01')").run();
    raw.close();
    const store = openSqliteStore({ file: path });
    try {
      await expect(store.migrate()).rejects.toMatchObject({
        code: 'invalid_configuration',
        message:
          'the database was migrated by a newer version of Recourse (migration "0099-future" is unknown to this version): use that version or a later one',
      });
    } finally {
      await store.close();
    }
  });

  it('opens .recourse/recourse.db under the working folder by default', async () => {
    const { folder } = await freshSqlite();
    const entry = new URL('../../dist/store/index.js', import.meta.url).href;
    const script = `const m = await import(${JSON.stringify(entry)}); const s = m.openSqliteStore(); await s.migrate(); await s.close();`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: folder });
    expect((await stat(join(folder, '.recourse', 'recourse.db'))).isFile()).toBe(true);
  });

  it('[DAT-13] a credential in replay text never reaches the database file', async () => {
    const { open, folder } = await freshSqlite();
    const secret = `sk-ant-api03-${'Q'.repeat(40)}`;
    const store = await open();
    let replay = openReplayEvidence({ sessionId: 'r1', executionId: 'i1', promptGeneration: 1 });
    replay = appendReplayEvent(replay, { kind: 'assistant_output', text: `here is ${secret} and more` });
    await store.transact((tx) => tx.saveReplaySnapshot('r1', 1, replay, t0));
    await store.close();
    const bytes = await Promise.all((await readdir(folder)).map((f) => readFile(join(folder, f))));
    expect(bytes.some((b) => b.includes('here is'))).toBe(true);
    expect(bytes.some((b) => b.includes(secret))).toBe(false);
  });
});
