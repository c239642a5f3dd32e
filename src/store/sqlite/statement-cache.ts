import type BetterSqlite3 from 'better-sqlite3';

/** The slice of better-sqlite3 Kysely's SqliteDialect uses. */
interface DialectDatabase {
  close(): void;
  prepare(sql: string): BetterSqlite3.Statement;
}

/**
 * Prepared statements, kept by SQL text. better-sqlite3 statements are reusable with new parameters, and
 * preparing one costs more than running it: Kysely's driver would prepare every query anew. The cache is
 * bounded (the SQL texts are a small fixed set, plus `IN (...)` lists of a few arities).
 */
export class StatementCache implements DialectDatabase {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    readonly database: BetterSqlite3.Database,
    private readonly limit = 256,
  ) {}

  prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.statements.size >= this.limit) this.statements.clear();
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    this.statements.clear();
    this.database.close();
  }
}
