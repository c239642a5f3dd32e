import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The managed stderr tail: the last `capacityBytes` bytes an agent wrote to stderr, kept as a bounded ring so a
 * chatty agent costs constant memory. Read as UTF-8 text (a character cut at the start becomes U+FFFD).
 */
export class StderrTail {
  private readonly buffer: Buffer;
  private start = 0;
  private length = 0;
  private total = 0;

  constructor(private readonly capacityBytes: number) {
    this.buffer = Buffer.alloc(capacityBytes);
  }

  append(chunk: Uint8Array): void {
    this.total += chunk.length;
    // Only the chunk's own tail can survive when it alone fills the ring.
    const data =
      chunk.length > this.capacityBytes ? chunk.subarray(chunk.length - this.capacityBytes) : chunk;
    for (const byte of data) {
      const at = (this.start + this.length) % this.capacityBytes;
      this.buffer[at] = byte;
      if (this.length < this.capacityBytes) this.length += 1;
      else this.start = (this.start + 1) % this.capacityBytes;
    }
  }

  /** Bytes written since `mark` (a `totalBytes` value taken earlier) that are still in the ring, as text. */
  textSince(mark: number): string {
    const kept = Math.min(this.length, this.total - mark);
    if (kept <= 0) return '';
    const out = Buffer.alloc(kept);
    const first = this.start + this.length - kept;
    for (let i = 0; i < kept; i++) out[i] = this.buffer[(first + i) % this.capacityBytes] ?? 0;
    return out.toString('utf8');
  }

  /** The whole tail as text. */
  text(): string {
    return this.textSince(0);
  }

  /**
   * Resolves once nothing more was written for `quietMs`, or after `maxMs` at most. Standard error is a pipe of its
   * own: a line the agent wrote just before its JSON-RPC error may be read after the error, on a loaded machine by
   * tens of milliseconds, so a judge that reads the tail at once would miss the cause it names.
   */
  async quiet(quietMs: number, maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    let seen = this.total;
    for (;;) {
      await sleep(Math.max(0, Math.min(quietMs, deadline - Date.now())));
      if (this.total === seen || Date.now() >= deadline) return;
      seen = this.total;
    }
  }

  /** Bytes ever written: a mark for `textSince`. */
  get totalBytes(): number {
    return this.total;
  }
}
