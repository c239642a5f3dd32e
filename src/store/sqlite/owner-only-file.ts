import { closeSync, mkdirSync, openSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

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

/**
 * Creates `folder` and the folders above it that are missing, each readable by its owner only (0700), one level at a
 * time. Node's `mkdirSync(..., {recursive: true})` never returns on a file system that answers ENOENT for a folder
 * whose parent exists (`/proc/x/recourse.db`: it retries the parent, finds it there, and tries again, for good),
 * which hung `openRecourse` and `recourse serve --db` at full CPU; here that answer is an error naming the folder.
 */
export function createFolders(folder: string): void {
  const missing: string[] = [];
  for (let at = folder; statOrNull(at) === null; at = dirname(at)) {
    if (dirname(at) === at) break;
    missing.unshift(at);
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      // Made meanwhile by someone else: as good as made here.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
