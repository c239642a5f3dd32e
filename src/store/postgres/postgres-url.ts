/** A PostgreSQL URL taken apart: what `pg` connects with, the schema Recourse works in, and what may be shown. */
export interface PostgresLocation {
  /** The URL without Recourse's own `schema` parameter (the password included: never log it). */
  readonly connectionString: string;
  /** The schema every table lives in (`public` when the URL names none). */
  readonly schema: string;
  /** The URL with the password replaced by `***`: the only form that reaches logs and errors. */
  readonly display: string;
}

/** A plain identifier: it goes into `search_path` and `CREATE SCHEMA`, so nothing that needs quoting is allowed. */
const schemaPattern = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Reads a `postgres://` (or `postgresql://`) URL. `?schema=NAME` selects the schema; every other parameter is
 * passed to `pg` as given. Returns a message (never containing the password) when the URL is not one.
 */
export function parsePostgresUrl(url: string): PostgresLocation | { readonly error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: 'is not a URL (expected postgres://user:password@host:port/database?schema=NAME)' };
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return { error: `must start with postgres:// or postgresql://, not ${parsed.protocol}//` };
  }
  if (parsed.hostname === '') return { error: 'names no host (postgres://user@host:port/database)' };
  const given = parsed.searchParams.get('schema') ?? 'public';
  // PostgreSQL folds an unquoted name to lower case: `Tenant1` is the schema `tenant1`. Every node must name it as
  // the server does (notifications carry the folded name; session locks are keyed by it).
  const schema = given.toLowerCase();
  if (!schemaPattern.test(given)) {
    return {
      error: `schema ${JSON.stringify(given)} must be 1 to 63 letters, digits or underscores, not starting with a digit`,
    };
  }
  parsed.searchParams.delete('schema');
  const connectionString = parsed.toString();
  if (parsed.password !== '') parsed.password = '***';
  parsed.searchParams.set('schema', schema);
  return { connectionString, schema, display: parsed.toString() };
}
