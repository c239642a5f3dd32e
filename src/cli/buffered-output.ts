import { writeOut } from './read-lines.js';

/** Bytes gathered before a write: a 64 KiB pipe buffer's worth (and the size of one scratch buffer). */
const chunkBytes = 64 * 1024;

/**
 * Output text encoded as it is added into 64 KiB buffers and written a buffer at a time, in order. Joining many
 * strings instead cost more than printing them (a third of the CLI's own time, and most of it when one string of
 * a batch holds a character outside Latin-1: V8 then copies every line into a two-byte string), and the lines,
 * held until the join, outlived the young generation's collections. A buffer handed to the stream is never written
 * again (a short batch is handed over as a copy), so a stream that queues it (a slow pipe) keeps its bytes.
 */
export class BufferedOutput {
  private buffer = Buffer.allocUnsafe(chunkBytes);
  private used = 0;
  /** Sealed chunks waiting for the next flush, in order: full buffers, or a text too long for one. */
  private ready: Array<Buffer | string> = [];

  constructor(private readonly stream: NodeJS.WritableStream) {}

  /** Whether a full buffer is waiting: the caller should flush before adding much more. */
  get full(): boolean {
    return this.ready.length > 0;
  }

  add(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2), so this much room always suffices.
    const most = text.length * 3;
    if (most > chunkBytes - this.used) {
      this.seal();
      if (most > chunkBytes) {
        this.ready.push(text);
        return;
      }
    }
    this.used += this.buffer.write(text, this.used);
  }

  /** Writes everything gathered, waiting for the stream to drain when its buffer is full. */
  async flush(): Promise<void> {
    this.seal();
    const chunks = this.ready;
    this.ready = [];
    for (const chunk of chunks) await writeOut(this.stream, chunk);
  }

  private seal(): void {
    if (this.used === 0) return;
    const filled = this.buffer.subarray(0, this.used);
    if (this.used < chunkBytes / 2) {
      // A short batch (standard input, a line at a time): a copy of its bytes, and the buffer stays.
      this.ready.push(Buffer.from(filled));
    } else {
      this.ready.push(filled);
      this.buffer = Buffer.allocUnsafe(chunkBytes);
    }
    this.used = 0;
  }
}
