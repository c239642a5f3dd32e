import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { testDatabaseUrl } from '../helpers/postgres.js';

// The local PostgreSQL cluster that serves the test database, driven through Debian's cluster tools (the tests run
// as root, as CI does). The cluster is the one listening on the test URL's port, so a run against another local
// cluster (RECOURSE_TEST_DATABASE_URL) restarts that one.
const run = promisify(execFile);

export interface LocalCluster {
  readonly version: string;
  readonly name: string;
  readonly port: number;
}

/** The cluster `pg_lsclusters` lists on the test database's port; fails, naming the port, when there is none. */
export async function testCluster(): Promise<LocalCluster> {
  const port = Number(new URL(testDatabaseUrl).port || 5432);
  const { stdout } = await run('pg_lsclusters', ['--no-header']);
  for (const line of stdout.split('\n')) {
    const [version, name, listens] = line.trim().split(/\s+/);
    if (version !== undefined && name !== undefined && Number(listens) === port)
      return { version, name, port };
  }
  throw new Error(`no local PostgreSQL cluster listens on port ${port} (pg_lsclusters: ${stdout.trim()})`);
}

/** Restarts the cluster (fast shutdown: sessions are ended, open transactions rolled back) and waits until it is up. */
export async function restartCluster(cluster: LocalCluster): Promise<void> {
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'restart']);
}

/** Starts the cluster unless it is already online. */
export async function ensureClusterUp(cluster: LocalCluster): Promise<void> {
  const { stdout } = await run('pg_lsclusters', ['--no-header', cluster.version, cluster.name]);
  if (/\bonline\b/.test(stdout)) return;
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'start']);
}
