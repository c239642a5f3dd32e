import type { ConnectionLoss } from '../../core/index.js';

/**
 * SQLSTATEs of a server that cannot take a connection (08001, 08004, 57P03: starting up) and of one that ended a
 * connection (the rest of class 08, 57P01 and 57P02: shutting down). An idle transaction the server ended (25P03)
 * is not a loss: it is this node's own stall. `pg` mostly reports a dropped connection in words, below: the code
 * reaches only the client's error event.
 */
const unreachableStates = new Set(['08001', '08004', '57P03']);
const droppedStates = new Set(['57P01', '57P02']);

/** Node's socket errors: the server could not be reached, or the connection broke under a query. */
const unreachableCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const droppedCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * `pg`'s own words for a client whose connection ended: they carry no code ("Connection terminated unexpectedly",
 * "Client has encountered a connection error and is not queryable", "Client was closed and is not queryable").
 */
const droppedWords = /^Connection terminated|is not queryable$/;

/**
 * Whether `error` says the database connection was lost rather than that the database refused what was asked:
 * `unreachable` when no connection could be made (the server down or starting), `dropped` when one ended under the
 * work (a restart, a network cut, a watchdog, or the server ending a transaction that stalled: the work may be the
 * cause), null otherwise. Followed through `cause` and AggregateError.
 */
export function connectionLoss(error: unknown, depth = 0): ConnectionLoss | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    if (unreachableStates.has(code) || unreachableCodes.has(code)) return 'unreachable';
    if (code.startsWith('08') || droppedStates.has(code) || droppedCodes.has(code)) return 'dropped';
  }
  if (typeof message === 'string' && droppedWords.test(message)) return 'dropped';
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const loss = connectionLoss(inner, depth + 1);
      if (loss !== null) return loss;
    }
  }
  return connectionLoss(cause, depth + 1);
}
