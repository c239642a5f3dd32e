import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { StderrTail } from './stderr-tail.js';
import type { LaunchRecipe } from './launch-recipe.js';

/** How the agent process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
}

/** The agent processes of this process that have not exited yet, for `killAgentGroups`. */
const running = new Set<AgentProcess>();

/**
 * Ends the process group of every agent this process started that is still running, with SIGKILL, at once and
 * synchronously: for a host about to exit without its orderly shutdown (a second Ctrl-C), since a detached agent
 * would otherwise outlive it.
 */
export function killAgentGroups(): void {
  for (const agent of running) agent.kill();
}

/**
 * One agent CLI as a child process: its own process group (spawned detached), stdio as web streams for the ACP
 * transport, the managed stderr tail, and its exit. `shutdown` ends the whole group by id: SIGTERM, then SIGKILL
 * after the recipe's grace, so a helper the agent started cannot outlive it.
 */
export class AgentProcess {
  readonly stderr: StderrTail;
  /** Settles once when the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  /** Null until the process exited. */
  exit: ProcessExit | null = null;
  /** The spawn error (command not found, ...), when the process never started. */
  spawnError: Error | null = null;
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;

  constructor(
    private readonly recipe: LaunchRecipe,
    env: Readonly<Record<string, string>>,
  ) {
    this.stderr = new StderrTail(recipe.stderrTailBytes);
    this.child = spawn(recipe.command, [...recipe.args], {
      cwd: recipe.cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    running.add(this);
    this.child.stderr.on('data', (chunk: Buffer) => this.stderr.append(chunk));
    // A write to a dead agent fails through the transport; the pipe error itself must not crash the host.
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.spawnError = error;
        this.exit = { code: null, signal: null };
        running.delete(this);
        resolve(this.exit);
      });
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        running.delete(this);
        resolve(this.exit);
      });
    });
  }

  /** The child's stdin and stdout as web streams (for `ndJsonStream`). */
  streams(): { readonly input: WritableStream<Uint8Array>; readonly output: ReadableStream<Uint8Array> } {
    return {
      input: Writable.toWeb(this.child.stdin),
      output: Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>,
    };
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ends the process group: SIGTERM now, SIGKILL after the grace if it is still running. Resolves on exit. */
  async shutdown(): Promise<ProcessExit> {
    if (this.exit !== null) {
      // The leader is gone; a helper it left in its group must not outlive it.
      this.signalGroup('SIGKILL');
      return this.exit;
    }
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), this.recipe.shutdownGraceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL to the whole group now, without waiting (see `killAgentGroups`). */
  kill(): void {
    this.signalGroup('SIGKILL');
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      // A negative pid addresses the process group the detached child leads.
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }
}
