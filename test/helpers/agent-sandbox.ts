import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A sandbox for real agent CLIs: a network namespace where only loopback exists (so a call to any address but
 * 127.0.0.1 fails instead of leaving the machine) and a throwaway HOME with its own TMPDIR and XDG folders, with
 * telemetry, update checks and other non-essential traffic switched off.
 *
 * The namespace is held open by a sleeping process made with `unshare --net`; every process that should live in
 * it (the agent and the fake provider it talks to) joins it with `nsenter --net=/proc/PID/ns/net`, so both see the
 * same loopback. Needs root (or CAP_SYS_ADMIN), as in CI and on the development machine.
 */
export interface NetworkNamespace {
  /** The holder process id; its `/proc/PID/ns/net` is the namespace. */
  readonly holderPid: number;
  /** Rewrites a command so it runs inside the namespace. */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /** Ends the holder (the namespace goes away with the last process in it). */
  close(): Promise<void>;
}

/** Opens a loopback-only network namespace; resolves once `lo` is up. */
export async function openNetworkNamespace(): Promise<NetworkNamespace> {
  // `unshare` without --fork execs the shell in the new namespace, so the child's pid is the namespace's holder.
  const holder = spawn(
    'unshare',
    ['--net', 'sh', '-c', 'ip link set lo up && echo ready && exec sleep 86400'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  const pid = holder.pid;
  if (pid === undefined) throw new Error('unshare did not start');
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    holder.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    holder.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    holder.once('exit', (code) => reject(new Error(`network namespace holder exited (${code}): ${stderr}`)));
    holder.once('error', reject);
  });
  const net = `/proc/${pid}/ns/net`;
  return {
    holderPid: pid,
    wrap: (command, args) => ({ command: 'nsenter', args: [`--net=${net}`, '--', command, ...args] }),
    close: () => endProcessGroup(holder),
  };
}

/** A throwaway home for one agent run: the folders exist, `env` points every per-user location into it. */
export interface AgentHome {
  readonly root: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string>>;
  remove(): void;
}

/**
 * Creates an isolated HOME (with TMPDIR and the XDG folders inside it) and an environment that keeps only PATH
 * and the locale from the parent, so no credential or setting of the machine's user reaches the agent.
 */
export function makeAgentHome(prefix = 'recourse-agent-'): AgentHome {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const dirs = {
    TMPDIR: join(root, 'tmp'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  for (const dir of [home, ...Object.values(dirs)]) mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {
    PATH: inheritedPath(),
    LANG: 'C.UTF-8',
    HOME: home,
    USERPROFILE: home,
    ...dirs,
    ...quietEnv,
  };
  // An agent's last writes (a log flushed on SIGTERM) can race the removal: retry on ENOTEMPTY and EBUSY.
  const remove = () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  return { root, home, env, remove };
}

/** Switches off telemetry, update checks and other traffic the agent CLIs send on their own. */
const quietEnv = {
  DO_NOT_TRACK: '1',
  NO_UPDATE_NOTIFIER: '1',
  npm_config_update_notifier: 'false',
  // Claude Code: no autoupdater, telemetry, error reporting or bug command traffic.
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  // Gemini CLI: no telemetry, and no relaunch of itself in a child node with a larger heap.
  GEMINI_TELEMETRY_ENABLED: 'false',
  GEMINI_CLI_NO_RELAUNCH: 'true',
} as const;

/** Starts a command inside the namespace, in its own process group (so `endProcessGroup` ends it whole). */
export function spawnInNamespace(
  namespace: NetworkNamespace,
  command: string,
  args: readonly string[],
  options: SpawnOptions & { env: Readonly<Record<string, string>> },
): ChildProcess {
  const wrapped = namespace.wrap(command, args);
  return spawn(wrapped.command, wrapped.args, { ...options, detached: true });
}

/** Ends a child's process group by its id (SIGTERM, then SIGKILL after `graceMs`); resolves once it exited. */
export async function endProcessGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  // Children of the leader that outlived it (a CLI's own subprocesses) are in the same group.
  signalGroup(pid, 'SIGKILL');
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The agents are found on the parent's PATH (node, the agent's own binaries): without one there is nothing to run. */
function inheritedPath(): string {
  const path = process.env.PATH;
  if (path === undefined || path === '')
    throw new Error('the agent sandbox needs PATH to find node and the agents');
  return path;
}
