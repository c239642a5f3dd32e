import { closeSync, openSync } from 'node:fs';

/**
 * Creates `file` readable and writable by its owner only (0600) when it does not exist; an existing file keeps its
 * mode (an operator may have chosen another). The database holds payloads and transcripts: no other local user
 * reads them.
 */
export function createOwnerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}
