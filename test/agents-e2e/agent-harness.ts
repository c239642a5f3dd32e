import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpAgent, parseLaunchRecipe, type LaunchRecipe } from '../../src/acp/index.js';
import { prepareAgentLaunch, type RealAgent } from '../helpers/agent-recipes.js';
import {
  endProcessGroup,
  makeAgentHome,
  openNetworkNamespace,
  spawnInNamespace,
  type AgentHome,
  type NetworkNamespace,
} from '../helpers/agent-sandbox.js';

/**
 * One real agent's sandbox for the end-to-end suite: a loopback-only network namespace, an isolated HOME, and the
 * fake provider (the built `recourse fake-provider`) running inside the namespace beside the agent. The agent is
 * launched through the ACP adapter from a recipe whose command is `nsenter` into that namespace; its ACP transport
 * is the child's stdio, which crosses the namespace boundary untouched.
 */

const repoRoot = new URL('../../', import.meta.url).pathname;
const cli = join(repoRoot, 'dist', 'cli', 'main.js');

/** A script STEP of `recourse fake-provider` (docs/fake-provider.md). */
export type ProviderStep = Readonly<Record<string, unknown>>;

/** The agent label the adapter gets (`codex-acp` switches on the Codex projection) and the provider it calls. */
const labels: Readonly<Record<RealAgent, { agent: string; provider: string }>> = {
  'claude-code': { agent: 'claude-code', provider: 'anthropic' },
  'gemini-cli': { agent: 'gemini-cli', provider: 'google' },
  codex: { agent: 'codex-acp', provider: 'openai' },
};

/**
 * Opens the namespace, or fails with what the suite needs: it must never be skipped where it cannot run (CI runs
 * as root; a machine without the capability fails here, loudly).
 */
export async function openSandboxNamespace(): Promise<NetworkNamespace> {
  try {
    return await openNetworkNamespace();
  } catch (error) {
    throw new Error(
      'the real-agent suite needs root or CAP_SYS_ADMIN for `unshare --net` (and util-linux nsenter, iproute2 ip); ' +
        `opening the loopback-only network namespace failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** The fake provider inside the namespace, restartable with a new script on the same port. */
export class FakeProvider {
  /** One parsed JSON line per request the provider logged, across restarts. */
  readonly log: Record<string, unknown>[] = [];
  private child: ChildProcess | null = null;
  private closed: Promise<void> = Promise.resolve();
  private port = 0;
  private serial = 0;

  constructor(
    private readonly namespace: NetworkNamespace,
    private readonly folder: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * (Re)starts the provider serving `then` to every generation request. The first start takes `--port 0` (a free
   * port, read from its `listening on` line); a restart reuses that port, so the running agent's base URL holds.
   */
  async serve(then: ProviderStep): Promise<void> {
    await this.stop();
    const file = join(this.folder, `script-${++this.serial}.json`);
    writeFileSync(file, JSON.stringify({ steps: [], then }));
    const child = spawnInNamespace(
      this.namespace,
      process.execPath,
      [cli, 'fake-provider', '--script', file, '--port', String(this.port)],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    this.closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    let pending = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        try {
          this.log.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // Not a request line.
        }
      }
    });
    this.port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        if (port !== undefined) resolve(Number(port));
      });
      child.once('exit', (code) => reject(new Error(`fake-provider exited (${code}) before listening`)));
      child.once('error', reject);
    });
  }

  /** Generation requests served since `mark` (a log length). */
  generationsSince(mark: number): Record<string, unknown>[] {
    return this.log.slice(mark).filter((entry) => typeof entry.step === 'string');
  }

  /** Ends the provider; resolves once its log is read to the end (so the requests it served are counted). */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    this.child = null;
    await endProcessGroup(child);
    await this.closed;
  }
}

export interface AgentSandbox {
  readonly agent: RealAgent;
  readonly namespace: NetworkNamespace;
  readonly home: AgentHome;
  readonly provider: FakeProvider;
  /** The adapter's recipe: `nsenter` into the namespace, then the agent's own command. */
  readonly recipe: LaunchRecipe;
  close(): Promise<void>;
}

/** Opens a sandbox for `agent` with its provider serving `first`; the recipe points the agent at it. */
export async function openAgentSandbox(agent: RealAgent, first: ProviderStep): Promise<AgentSandbox> {
  const namespace = await openSandboxNamespace();
  const home = makeAgentHome(`recourse-e2e-${agent}-`);
  const cwd = join(home.root, 'work');
  mkdirSync(cwd);
  const provider = new FakeProvider(namespace, home.root);
  try {
    await provider.serve(first);
    const launch = prepareAgentLaunch(agent, home, provider.url);
    const net = `--net=/proc/${namespace.holderPid}/ns/net`;
    const parsed = parseLaunchRecipe({
      ...labels[agent],
      command: 'nsenter',
      args: [net, '--', launch.command, ...launch.args],
      cwd,
      // The keys here are fakes made for the sandbox, so plain values are fine; a real profile uses from_env.
      env: launch.env,
      ...(launch.authMethod === null ? {} : { auth_method: launch.authMethod }),
      shutdown_grace_ms: 2000,
    });
    if (!parsed.ok) throw new Error(`bad recipe: ${JSON.stringify(parsed.issues)}`);
    return {
      agent,
      namespace,
      home,
      provider,
      recipe: parsed.recipe,
      close: async () => {
        await provider.stop();
        await endNamespaceProcesses(namespace);
        await namespace.close();
        removeHome(home);
      },
    };
  } catch (error) {
    await provider.stop();
    await namespace.close();
    removeHome(home);
    throw error;
  }
}

/** Launches the sandbox's agent through the adapter and opens a session; throws with its stderr when it cannot. */
export async function openAgent(sandbox: AgentSandbox, invocationId: string): Promise<AcpAgent> {
  const agent = AcpAgent.launch(sandbox.recipe, { invocationId, environment: {} });
  const opened = await agent.open();
  if (!opened.ok) {
    const stderr = agent.process.stderr.text();
    await agent.shutdown();
    throw new Error(`${sandbox.agent} did not open a session: ${JSON.stringify(opened.failure)}\n${stderr}`);
  }
  return agent;
}

/**
 * Ends what an agent left running in its namespace. Claude Code starts a CLI process per session in a process group
 * of its own, which outlives the agent's group for a moment and keeps writing into the home; every process in the
 * namespace was started by this suite (the holder, the provider, the agent and their children), found here by the
 * namespace they share and ended by id.
 */
async function endNamespaceProcesses(namespace: NetworkNamespace): Promise<void> {
  const netOf = (pid: number | string) => {
    try {
      return readlinkSync(`/proc/${pid}/ns/net`);
    } catch {
      return null;
    }
  };
  const ours = netOf(namespace.holderPid);
  if (ours === null) return;
  const left = () =>
    readdirSync('/proc/')
      .filter(
        (entry) => /^\d+$/.test(entry) && Number(entry) !== namespace.holderPid && netOf(entry) === ours,
      )
      .map(Number);
  for (let round = 0; round < 20; round++) {
    const pids = left();
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, round === 0 ? 'SIGTERM' : 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Removes a sandbox home, retrying while a last write races the removal. */
function removeHome(home: AgentHome): void {
  rmSync(home.root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}
