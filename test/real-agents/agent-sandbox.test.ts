import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  endProcessGroup,
  makeAgentHome,
  openNetworkNamespace,
  spawnInNamespace,
  type AgentHome,
  type NetworkNamespace,
} from '../helpers/agent-sandbox.js';

/** Runs a command inside the namespace with the sandbox home; resolves with its exit code and output. */
function run(
  namespace: NetworkNamespace,
  home: AgentHome,
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnInNamespace(namespace, command, args, {
    env: home.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Connects to HOST:PORT and prints `connected` or the error code; a 3 s cap keeps a silently dropped packet short.
const probe = `
const net = require('node:net');
const socket = net.connect({ host: process.argv[1], port: Number(process.argv[2]) });
socket.setTimeout(3000, () => { console.log('ETIMEDOUT'); process.exit(0); });
socket.on('connect', () => { console.log('connected'); process.exit(0); });
socket.on('error', (error) => { console.log(error.code); process.exit(0); });
`;

// Serves one answer on 127.0.0.1 inside the namespace and fetches it from a second process in the same namespace
// (started asynchronously: the server answers from this process's event loop).
const loopbackRoundTrip = `
const http = require('node:http');
const { execFile } = require('node:child_process');
const server = http.createServer((req, res) => res.end('inside'));
server.listen(0, '127.0.0.1', () => {
  const fetcher = "fetch('http://127.0.0.1:' + process.argv[1]).then(r => r.text()).then(t => console.log(t))";
  execFile(process.execPath, ['-e', fetcher, String(server.address().port)], (error, stdout, stderr) => {
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    server.close();
  });
});
`;

/** True while the process exists and is not a zombie waiting to be reaped (a container's init may be slow to). */
function isRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  const state = readFileSync(stat, 'utf8').split(') ')[1]?.charAt(0);
  return state !== 'Z' && state !== 'X';
}

describe('the agent sandbox', () => {
  let namespace: NetworkNamespace;
  let home: AgentHome;
  let hostServer: Server;
  let hostPort: number;

  beforeAll(async () => {
    namespace = await openNetworkNamespace();
    home = makeAgentHome();
    // A server on the host's own loopback: the namespace has a loopback of its own and must not reach it.
    hostServer = createServer((_req, res) => res.end('host'));
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostPort = (hostServer.address() as { port: number }).port;
  });

  afterAll(async () => {
    await namespace.close();
    home.remove();
    await new Promise<void>((resolve) => hostServer.close(() => resolve()));
  });

  it('loopback works inside: a server and a client in the namespace talk over 127.0.0.1', async () => {
    const result = await run(namespace, home, process.execPath, ['-e', loopbackRoundTrip]);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('inside');
  });

  it('an address outside loopback is unreachable from inside, and so is the host loopback', async () => {
    const outside = await run(namespace, home, process.execPath, ['-e', probe, '1.1.1.1', '443']);
    expect(outside.stdout.trim()).toBe('ENETUNREACH');
    const hostLoopback = await run(namespace, home, process.execPath, [
      '-e',
      probe,
      '127.0.0.1',
      String(hostPort),
    ]);
    expect(hostLoopback.stdout.trim()).toBe('ECONNREFUSED');
    // The same probe outside the namespace does reach the host server, so the refusal above is the namespace's.
    const { spawnSync } = await import('node:child_process');
    const direct = spawnSync(process.execPath, ['-e', probe, '127.0.0.1', String(hostPort)], {
      encoding: 'utf8',
    });
    expect(direct.stdout.trim()).toBe('connected');
  });

  it('HOME, TMPDIR and the XDG folders are the sandbox, and no parent variable leaks in', async () => {
    process.env.RECOURSE_SANDBOX_LEAK_PROBE = 'leaked';
    try {
      const script =
        'touch "$HOME/written" && echo "$HOME|$TMPDIR|$XDG_CONFIG_HOME|${RECOURSE_SANDBOX_LEAK_PROBE:-none}"';
      const result = await run(namespace, home, 'sh', ['-c', script]);
      const [homeDir, tmp, config, leak] = result.stdout.trim().split('|');
      expect(homeDir).toBe(home.home);
      expect(tmp?.startsWith(home.root)).toBe(true);
      expect(config?.startsWith(home.home)).toBe(true);
      expect(leak).toBe('none');
      expect(existsSync(join(home.home, 'written'))).toBe(true);
    } finally {
      delete process.env.RECOURSE_SANDBOX_LEAK_PROBE;
    }
  });

  it('ending the process group ends the command and the children it started', async () => {
    const pidFile = join(home.root, 'grandchild.pid');
    const child = spawnInNamespace(namespace, 'sh', ['-c', `sleep 300 & echo $! > ${pidFile}; wait`], {
      env: home.env,
      stdio: 'ignore',
    });
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
    await endProcessGroup(child);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isRunning(grandchild)).toBe(false);
  });
});
