import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentHome } from './agent-sandbox.js';

/**
 * Launch recipes for the real agent CLIs pinned as devDependencies (docs/agents.md says why each setting is
 * there). Each recipe points the agent at a provider base URL, gives it a fake key, and turns its own retries off
 * so a provider fault is reported at once instead of being retried behind the client's back.
 */
export const realAgents = ['claude-code', 'gemini-cli', 'codex'] as const;
export type RealAgent = (typeof realAgents)[number];

/** The npm package of each agent; its exact version is the pin in package.json. */
export const agentPackages: Readonly<Record<RealAgent, string>> = {
  'claude-code': '@zed-industries/claude-agent-acp',
  'gemini-cli': '@google/gemini-cli',
  codex: '@zed-industries/codex-acp',
};

export interface AgentLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The sandbox home's environment plus the agent's own variables. */
  readonly env: Readonly<Record<string, string>>;
  /** The ACP auth method to call `authenticate` with after `initialize`, or null when none is needed. */
  readonly authMethod: string | null;
}

const repoRoot = new URL('../../', import.meta.url).pathname;
const bin = (path: string) => join(repoRoot, 'node_modules', path);

/** The version package.json pins for an agent (exact pins only: a range here is a mistake). */
export function pinnedVersion(agent: RealAgent): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const version = manifest.devDependencies[agentPackages[agent]];
  if (version === undefined || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(
      `package.json devDependencies.${agentPackages[agent]}: expected an exact version, got ${version}`,
    );
  }
  return version;
}

/**
 * Writes the agent's settings files into the sandbox home and returns how to start it against `providerUrl`
 * (`http://127.0.0.1:PORT`, no trailing slash).
 */
export function prepareAgentLaunch(agent: RealAgent, home: AgentHome, providerUrl: string): AgentLaunch {
  switch (agent) {
    case 'claude-code':
      return {
        command: bin('.bin/claude-agent-acp'),
        args: [],
        env: {
          ...home.env,
          ANTHROPIC_BASE_URL: providerUrl,
          ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
          CLAUDE_CODE_MAX_RETRIES: '0',
          // Claude Code needs its bubblewrap mode to run as root (CI and the development machine do).
          CLAUDE_CODE_BUBBLEWRAP: '1',
        },
        authMethod: null,
      };
    case 'gemini-cli': {
      const settings = {
        general: { maxAttempts: 1, disableAutoUpdate: true, disableUpdateNag: true },
        model: { name: 'gemini-2.5-flash' },
        telemetry: { enabled: false },
        privacy: { usageStatisticsEnabled: false },
        security: { auth: { selectedType: 'gemini-api-key' } },
      };
      mkdirSync(join(home.home, '.gemini'), { recursive: true });
      writeFileSync(join(home.home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
      return {
        command: bin('.bin/gemini'),
        args: ['--acp'],
        env: { ...home.env, GOOGLE_GEMINI_BASE_URL: providerUrl, GEMINI_API_KEY: 'test-not-a-real-key' },
        authMethod: 'gemini-api-key',
      };
    }
    case 'codex': {
      const codexHome = join(home.home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      // Codex ignores OPENAI_BASE_URL: the provider entry carries the base URL, the key's variable and the retries.
      const config = [
        'model = "gpt-5.4"',
        'model_provider = "fake"',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${providerUrl}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
      ].join('\n');
      writeFileSync(join(codexHome, 'config.toml'), config);
      return {
        command: bin('@zed-industries/codex-acp-linux-x64/bin/codex-acp'),
        args: [],
        env: { ...home.env, CODEX_HOME: codexHome, FAKE_OPENAI_API_KEY: 'sk-test-not-a-real-key' },
        authMethod: null,
      };
    }
  }
}
