import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedVersion, prepareAgentLaunch, realAgents, type RealAgent } from '../helpers/agent-recipes.js';
import {
  endProcessGroup,
  makeAgentHome,
  openNetworkNamespace,
  spawnInNamespace,
  type NetworkNamespace,
} from '../helpers/agent-sandbox.js';

/**
 * Each pinned real agent starts from its recipe inside the sandbox and opens an ACP session over its real stdio,
 * with no provider reachable at all (starting a session sends no generation request): the recipes, the isolated
 * home and the namespace are what the real-agent suite builds on.
 */
async function openSession(namespace: NetworkNamespace, agent: RealAgent) {
  const home = makeAgentHome(`recourse-${agent}-`);
  const cwd = join(home.root, 'work');
  mkdirSync(cwd);
  // Port 9 (discard) has no listener in the namespace: a provider call would fail, and none is made here.
  const launch = prepareAgentLaunch(agent, home, 'http://127.0.0.1:9');
  const child = spawnInNamespace(namespace, launch.command, launch.args, {
    cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  try {
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    return await client({ name: 'recourse-real-agent-test' }).connectWith(stream, async (context) => {
      const init = await context.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      if (launch.authMethod !== null) {
        await context.request(methods.agent.authenticate, { methodId: launch.authMethod });
      }
      const session = await context.request(methods.agent.session.new, { cwd, mcpServers: [] });
      return { init, session };
    });
  } catch (error) {
    throw new Error(`${agent} failed to open a session; stderr: ${stderr}`, { cause: error });
  } finally {
    await endProcessGroup(child);
    home.remove();
  }
}

describe('the pinned real agents in the sandbox', () => {
  let namespace: NetworkNamespace;
  beforeAll(async () => {
    namespace = await openNetworkNamespace();
  });
  afterAll(async () => {
    await namespace.close();
  });

  it.each(realAgents)('[EVD-01] %s starts from its recipe and opens an ACP session', async (agent) => {
    const { init, session } = await openSession(namespace, agent);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.version).toBe(pinnedVersion(agent));
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(session.sessionId).toMatch(/\S/);
  });
});
