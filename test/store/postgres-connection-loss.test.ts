import { describe, expect, it } from 'vitest';
import { connectionLoss } from '../../src/store/postgres/connection-loss.js';

/** An error as `pg` gives a server's refusal or a socket's failure: a message and a code. */
const withCode = (code: string, message = `error ${code}`) => Object.assign(new Error(message), { code });

describe('[DUR-01] telling a lost database connection from a refused statement', () => {
  it.each([
    ['the server still starting (57P03)', withCode('57P03', 'the database system is starting up')],
    ['a connection that could not be made (08001)', withCode('08001')],
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['an unknown host', withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND db.example')],
    ['a refusal inside an AggregateError', new AggregateError([withCode('ECONNREFUSED')], '')],
  ])('%s: the database cannot be reached', (_what, error) => {
    expect(connectionLoss(error)).toBe('unreachable');
  });

  it.each([
    [
      'the server shutting down (57P01)',
      withCode('57P01', 'terminating connection due to administrator command'),
    ],
    ['a crash shutdown (57P02)', withCode('57P02')],
    ['a connection failure (08006)', withCode('08006')],
    ['a reset connection', withCode('ECONNRESET', 'read ECONNRESET')],
    ["pg's ended client", new Error('Connection terminated unexpectedly')],
    ["pg's closed client", new Error('Client has encountered a connection error and is not queryable')],
    ['a drop inside a cause', new Error('commit failed', { cause: withCode('57P01') })],
  ])('%s: the connection was dropped', (_what, error) => {
    expect(connectionLoss(error)).toBe('dropped');
  });

  it.each([
    // The server ending this node's own idle transaction: its stall, not a loss.
    ['an idle transaction ended (25P03)', withCode('25P03')],
    ['a unique violation (23505)', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a deadlock (40P01)', withCode('40P01', 'deadlock detected')],
    ['a statement timeout (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['a missing table (42P01)', withCode('42P01', 'relation "routes" does not exist')],
    ['a plain error', new Error('could not lock the due routes')],
    [
      'a message that only mentions a connection',
      new Error('the route says: Connection terminated by the agent'),
    ],
    ['no error at all', null],
    ['a string', 'Connection terminated unexpectedly'],
  ])('%s is no loss', (_what, error) => {
    expect(connectionLoss(error)).toBeNull();
  });

  it('does not follow a cause chain for ever', () => {
    const looped = new Error('outer') as Error & { cause?: unknown };
    looped.cause = looped;
    expect(connectionLoss(looped)).toBeNull();
  });
});
