/**
 * Subscribers to one kind of event. Each is called in turn; one that throws is skipped over, because an
 * observer's failure must never undo or interrupt what the emitter already did.
 */
export class Listeners<E> {
  private readonly listeners = new Set<(event: E) => void>();

  add(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: E): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // See the class comment.
      }
    }
  }
}
