import { describe, expect, it } from 'vitest';
import type { EventLog, LoggedEvent } from '../../src/core/index.js';
import { EventHub } from '../../src/server/event-hub.js';
import { until } from '../helpers/until.js';

type Row = Parameters<EventLog['append']>[0][number];

/**
 * A log in memory whose next appends fail the way a database restarting makes them fail: `down` appends throw
 * before storing anything; `answerLost` appends store their events and then throw (the commit went through, the
 * connection dropped before its answer).
 */
class FlakyLog implements EventLog {
  readonly rows: LoggedEvent[] = [];
  down = 0;
  answerLost = 0;
  private nextId = 1;

  append(events: readonly Row[]): Promise<readonly LoggedEvent[]> {
    if (this.down > 0) {
      this.down--;
      return Promise.reject(new Error('connection refused'));
    }
    const stored = events.map((e) => ({ id: this.nextId++, ...e }));
    this.rows.push(...stored);
    if (this.answerLost > 0) {
      this.answerLost--;
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    }
    return Promise.resolve(stored);
  }
  after(afterId: number, limit: number): Promise<readonly LoggedEvent[]> {
    return Promise.resolve(this.rows.filter((e) => e.id > afterId).slice(0, limit));
  }
  bounds() {
    const first = this.rows[0];
    const last = this.rows.at(-1);
    return Promise.resolve(
      first === undefined || last === undefined ? null : { first: first.id, last: last.id },
    );
  }
  lastId(): Promise<number> {
    return Promise.resolve(this.nextId - 1);
  }
  prune(): Promise<number> {
    return Promise.resolve(0);
  }
}

async function hubOn(log: FlakyLog) {
  const errors: unknown[] = [];
  const hub = new EventHub({ now: () => 1_000, onError: (error) => errors.push(error), retryMs: 1 });
  await hub.attach(log);
  const received: LoggedEvent[] = [];
  hub.subscribe((event) => received.push(event));
  return { hub, received, errors };
}

const numbers = (events: readonly LoggedEvent[]) =>
  events.map((e) => (JSON.parse(e.data) as { n: number }).n);

describe('EventHub on a log whose appends fail (a database restarting)', () => {
  it.each([
    {
      name: 'an append refused while the database is down is tried again: every event is stored and delivered once, in order',
      fail: (log: FlakyLog) => (log.down = 3),
      errors: 3,
    },
    {
      name: 'an append that committed but lost its answer is found in the log, not stored twice, and delivered once',
      fail: (log: FlakyLog) => (log.answerLost = 1),
      errors: 1,
    },
  ])('$name', async ({ fail, errors: expectedErrors }) => {
    const log = new FlakyLog();
    const { hub, received, errors } = await hubOn(log);
    hub.publish({ type: 'test', data: { n: 1 } });
    await hub.drained();
    fail(log);
    hub.publish({ type: 'test', data: { n: 2 } });
    hub.publish({ type: 'test', data: { n: 3 } });
    await until(() => received.length >= 3);
    hub.publish({ type: 'test', data: { n: 4 } });
    await hub.drained();
    expect(numbers(log.rows)).toEqual([1, 2, 3, 4]);
    expect(received).toEqual(log.rows);
    expect(errors).toHaveLength(expectedErrors);
    await hub.close();
  });

  it('closing while the database is down gives up the events still failing rather than wait for it', async () => {
    const log = new FlakyLog();
    const { hub, received, errors } = await hubOn(log);
    log.down = Number.POSITIVE_INFINITY;
    hub.publish({ type: 'test', data: { n: 1 } });
    await until(() => errors.length >= 2);
    await hub.close();
    expect(received).toEqual([]);
    expect(log.rows).toEqual([]);
  });
});
