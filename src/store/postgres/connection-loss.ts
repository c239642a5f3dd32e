/**
 * SQLSTATEs that say the connection itself is gone or going, not that a statement was refused: class 08
 * (connection exception), the server shutting down or starting (57P01-57P03) and an idle transaction the server
 * ended (25P03).
 */
const lostStates = new Set(['57P01', '57P02', '57P03', '25P03']);

/** Node's socket errors: the server could not be reached, or the connection broke under a query. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * `pg`'s own words for a client whose connection ended: they carry no code ("Connection terminated unexpectedly",
 * "Client has encountered a connection error and is not queryable", "Client was closed and is not queryable").
 */
const lostWords = /^Connection terminated|is not queryable$/;

/**
 * Whether `error` says the database connection was lost (a restart, a network cut, the server ending an idle
 * transaction) rather than that the database refused what was asked. A loss says nothing about the work: done
 * again on a new connection, it may well succeed.
 */
export function connectionLost(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || lostStates.has(code) || socketCodes.has(code)))
    return true;
  if (typeof message === 'string' && lostWords.test(message)) return true;
  if (error instanceof AggregateError && error.errors.some((e) => connectionLost(e, depth + 1))) return true;
  return connectionLost(cause, depth + 1);
}
