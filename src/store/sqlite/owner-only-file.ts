import { closeSync, openSync, statSync, type Stats } from 'node:fs';

/**
 * Creates `file` readable and writable by its owner only (0600) when it does not exist; an existing file keeps its
 * mode (an operator may have chosen another). The database holds payloads and transcripts: no other local user
 * reads them. A path that is a FIFO, socket or device is refused: opening a FIFO nobody reads blocks the whole
 * process for good.
 */
export function createOwnerOnly(file: string): void {
  const existing = statOrNull(file);
  if (existing !== null && !existing.isFile() && !existing.isDirectory()) {
    throw new Error(
      `${JSON.stringify(file)} is not a regular file (a FIFO, socket or device): name a database file`,
    );
  }
  closeSync(openSync(file, 'a', 0o600));
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
