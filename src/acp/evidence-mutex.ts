/**
 * The evidence mutex of one session's prompt-turn state: the notification worker applies each update while
 * holding it, and the judge takes the turn's snapshot while holding it, so a judgment never sees half an update.
 */
export class EvidenceMutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `work` once every earlier holder has finished; holders run one at a time, in call order. */
  run<T>(work: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    // The next holder waits for this one whatever its outcome.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
