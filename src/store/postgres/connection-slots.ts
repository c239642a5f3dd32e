/**
 * At most `limit` pieces of work at once; the others wait in call order. Work that holds a pooled connection while
 * it waits for more queries on the same pool (a session's lock) must leave connections for those queries, or every
 * connection ends up held by a waiter and nothing moves.
 */
export class ConnectionSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next === undefined) this.active -= 1;
      else next();
    }
  }
}
