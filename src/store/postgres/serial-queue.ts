/**
 * Runs work one at a time, in call order. On SQLite every store transaction holds the only connection, so a
 * transaction and an event-log append never interleave; over a pool they would. Queuing them keeps the SQLite
 * semantics (one writer at a time in this process, event ids given in commit order) while reads stay parallel.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work, work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
