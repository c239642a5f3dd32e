import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { testDatabaseUrl } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

// The multi-node tests' harness: real node processes of the built engine (fixtures/pg-node.mjs, which documents its
// modes and environment) on one schema of the real PostgreSQL, and a client of the test database to look with.
const worker = fileURLToPath(new URL('./fixtures/pg-node.mjs', import.meta.url));

export interface NodeProcess {
  readonly child: ChildProcess;
  /** Every line it printed so far ({"ready":true}, {"seeded":N}). */
  readonly lines: string[];
}

/** Starts node processes and kills with SIGKILL, at `killAll`, every one still running. */
export class NodeProcesses {
  private readonly children: ChildProcess[] = [];

  start(url: string, nodeId: string, args: readonly string[], env: Record<string, string> = {}): NodeProcess {
    const child = spawn(process.execPath, [worker, url, nodeId, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.children.push(child);
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    child.stderr.on('data', (chunk: Buffer) => process.stderr.write(`[${nodeId}] ${chunk.toString()}`));
    return { child, lines };
  }

  /**
   * Starts nodes on one schema and resolves once each has reconciled: the first alone (it migrates the schema),
   * the others then together.
   */
  async startAll(
    url: string,
    ids: readonly string[],
    env: Record<string, string> = {},
  ): Promise<NodeProcess[]> {
    const nodes = [this.start(url, ids[0]!, ['run'], env)];
    await until(() => nodes[0]!.lines.length > 0);
    nodes.push(...ids.slice(1).map((id) => this.start(url, id, ['run'], env)));
    await until(() => nodes.every((n) => n.lines.includes('{"ready":true}')));
    return nodes;
  }

  killAll(): void {
    for (const child of this.children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Stops the nodes with SIGTERM (a clean close) and resolves with their exit codes. */
export async function stopAll(nodes: readonly NodeProcess[]): Promise<(number | null)[]> {
  for (const n of nodes) n.child.kill('SIGTERM');
  return Promise.all(nodes.map((n) => exited(n.child)));
}

/**
 * A pool on the test database that counts rows of one schema's tables. A pool, not one client: after a database
 * restart its next query opens a fresh connection.
 */
export function schemaClient(schema: string): {
  readonly db: pg.Pool;
  readonly count: (query: string) => Promise<number>;
} {
  const db = new pg.Pool({ connectionString: testDatabaseUrl, max: 2 });
  // A connection the restarting server drops fails its query, never the test process.
  db.on('error', () => undefined);
  db.on('connect', (client) => client.on('error', () => undefined));
  return {
    db,
    count: async (query) =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.${query}`)).rows[0]!.n,
  };
}
