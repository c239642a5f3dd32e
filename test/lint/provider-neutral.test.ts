import { basename } from 'node:path';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scanCode, readRepoFile, tsFilesUnder, wordsOf, type Finding } from './code-scan.js';
import { fixturesDir, loadFixtures } from '../helpers/fixtures.js';
import {
  catalogueRules,
  codexCapacityDiagnostic,
  cursorConstantDiagnostic,
  cursorDiagnosticPrefix,
  hardCodes,
  nonProviderCodes,
  projectionAdapterIds,
  transientCodes,
} from '../../src/core/index.js';

/**
 * Only the catalogue holds provider signatures (CLS-03); orchestration code never looks at provider names or raw
 * error text to choose behaviour (CLS-05, CUR-39). This test scans source code with every comment blanked out:
 * a comment chooses no behaviour, and prose that explains a requirement ("Cursor's RetriableError label is
 * transport evidence only") is worth keeping beside the code it explains.
 *
 * The forbidden vocabulary is derived from the catalogue's own data, so a new provider family, rule or fixture
 * extends it without editing this file; a short list of well-known names covers vendors the catalogue does not
 * (yet) mention.
 */

/** Vendor, model-family and agent names, whether or not the catalogue mentions them yet. */
const wellKnownNames = [
  'anthropic',
  'openai',
  'google',
  'gemini',
  'claude',
  'codex',
  'qwen',
  'azure',
  'bedrock',
  'vertex',
  'mistral',
  'groq',
  'xai',
  'deepseek',
  'openrouter',
  'copilot',
  'opencode',
  'cohere',
  'ollama',
  'gpt',
  'sonnet',
  'opus',
  'haiku',
  'llama',
];

/**
 * Words inside derived ids that name a layer, a protocol or a placeholder rather than a vendor: rule families
 * such as `http.`, `network.` or `provider.`, the Agent Client Protocol (`acp`), the `-code`/`-cli`/`-shell`
 * of agent ids, the `generic` and `some-agent` fixture ids, the `-ai` of a service id (`azure-ai`).
 */
const neutralWords = new Set([
  'acp',
  'agent',
  'ai',
  'cli',
  'code',
  'generic',
  'http',
  'local',
  'network',
  'provider',
  'sdk',
  'shell',
  'some',
  'transport',
]);

/**
 * Structured values of the catalogue that are also ordinary words of this code base, so matching them would
 * flag our own vocabulary, not a provider's: a store lookup is `not_found`, a plan category is `internal` or
 * `authentication`, a notice says "Provider overloaded".
 */
const ordinaryWords = new Set([
  'auth',
  'authentication',
  'internal',
  'not_found',
  'overloaded',
  'unauthenticated',
  'unauthorized',
  'unavailable',
]);

/**
 * Vendor and agent names that are also keywords or ordinary words of TypeScript code (the Continue editor
 * extension, Together AI, the `open` of Open WebUI, Meta's Llama API, Cursor's agent, Writer's models, the `search`
 * and `reader` of a search or reader tool's id): as a bare
 * word they would flag every `continue;`, `open()`, the HTTP API's pagination `cursor` or "another writer won".
 * Their hyphenated ids (`cursor-acp`), the adapter ids and rule ids still count as signatures.
 */
const namesThatAreWords = new Set([
  'continue',
  'together',
  'open',
  'meta',
  'cursor',
  'writer',
  'search',
  'reader',
]);

/** The classifier's own output vocabulary: codes are provider-neutral by design (DAT-02). */
const catalogueCodes = new Set<string>([...transientCodes, ...hardCodes, ...nonProviderCodes]);

function vocabulary() {
  const ids = new Set<string>();
  // Provider families (fixture files), the provider and agent ids the fixtures carry, rule families, the ids
  // rules are limited to, and the agent adapters the projection knows.
  for (const file of readdirSync(fixturesDir)) if (file.endsWith('.jsonl')) ids.add(basename(file, '.jsonl'));
  for (const fixture of loadFixtures()) {
    const evidence = fixture.evidence as Record<string, unknown>;
    for (const key of ['provider', 'agent']) {
      const id = evidence[key];
      if (typeof id === 'string') ids.add(id);
    }
  }
  for (const rule of catalogueRules) {
    ids.add(rule.id.split('.')[0]!);
    for (const source of rule.when.sources ?? []) ids.add(source);
  }
  for (const id of projectionAdapterIds) ids.add(id);

  const names = new Set(wellKnownNames);
  for (const id of ids)
    for (const { word } of wordsOf(id))
      if (!neutralWords.has(word) && !namesThatAreWords.has(word)) names.add(word);

  const signatures = new Set<string>();
  const addSignature = (s: string) => {
    const lower = s.toLowerCase();
    if (!catalogueCodes.has(lower) && !ordinaryWords.has(lower)) signatures.add(lower);
  };
  for (const id of ids) if (/[-_]/.test(id)) addSignature(id);
  // An adapter id as an identifier (`cursor-acp` is the provider id, `cursor_acp` the error source).
  for (const id of projectionAdapterIds) addSignature(id.replace(/-/g, '_'));
  for (const rule of catalogueRules) {
    addSignature(rule.id);
    if (rule.tier === 'pattern') continue;
    // Exact values of structured fields (`overloaded_error`, `insufficient_quota`, `resource_exhausted`), and
    // the keywords shaped like a provider's identifiers: snake_case or an exception class (`retriableerror`).
    for (const values of Object.values(rule.when.fields ?? {})) for (const v of values ?? []) addSignature(v);
    for (const keyword of rule.when.keywords ?? [])
      if (/_|error$|exception$/.test(keyword)) addSignature(keyword);
  }
  // The raw diagnostics of the agent adapters (CUR-39).
  for (const text of [cursorDiagnosticPrefix, cursorConstantDiagnostic, codexCapacityDiagnostic])
    addSignature(text);
  return { names, signatures };
}

const forbidden = vocabulary();

/** Orchestration: the engine, callers, routes, policy, safety, circuits, notices, plans, simulation, the store, the demo, the
 * HTTP service. */
const orchestration = [
  'src/engine',
  'src/app',
  'src/core/route',
  'src/core/policy',
  'src/core/safety',
  'src/core/circuit',
  'src/core/notice',
  'src/core/plan',
  'src/cli/simulate',
  'src/store',
  'src/demo',
  'src/server',
];

/**
 * Behaviour that names a provider signature outside the catalogue, judged acceptable and listed exactly
 * (file and literal), so anything new still fails. The plan-error rules of seed 004 (PLN-03: tried after the
 * provider catalogue) are their own data table and match generic runtime exception classes to pick a plan
 * category; the provider catalogue lists the same class names for its SDK rules. `run` names the ACP stop reasons
 * of an answered turn (`max_tokens` is the Agent Client Protocol's own value, not a provider's body) to say when an
 * answer was cut short; it classifies nothing.
 */
const exemptions: ReadonlyArray<{ file: string; found: string }> = [
  { file: 'src/core/plan/plan-rules.ts', found: 'connectionerror' },
  { file: 'src/core/plan/plan-rules.ts', found: 'timeoutexception' },
  { file: 'src/core/plan/plan-rules.ts', found: 'unauthorizederror' },
  { file: 'src/cli/run-progress.ts', found: 'max_tokens' },
];
const exempt = (f: Finding) => exemptions.some((e) => e.file === f.file && e.found === f.found);

const describeFinding = (f: Finding) => `${f.file}:${f.line} ${f.kind} ${JSON.stringify(f.found)}`;

function scan(files: readonly string[]): Finding[] {
  return files.flatMap((file) => scanCode(file, readRepoFile(file), forbidden));
}

describe('provider-neutral orchestration', () => {
  it('derives its vocabulary from the catalogue data', () => {
    for (const name of ['anthropic', 'openai', 'codex', 'google', 'gemini', 'windsurf', 'zed'])
      expect(forbidden.names, name).toContain(name);
    // A name that is also a word (the pagination `cursor`) is not flagged bare; its ids are.
    for (const word of namesThatAreWords) expect(forbidden.names).not.toContain(word);
    for (const literal of [
      'cursor-acp',
      'cursor_acp',
      'claude-code',
      'overloaded_error',
      'retriableerror',
      'insufficient_quota',
      'resource_exhausted',
      'anthropic.overloaded_error.v1',
      'cursor.retriable_stream_reset.v1',
    ])
      expect(forbidden.signatures, literal).toContain(literal);
    for (const word of [...neutralWords, ...catalogueCodes]) {
      expect(forbidden.names).not.toContain(word);
      expect(forbidden.signatures).not.toContain(word);
    }
  });

  it('[CLS-05][CUR-39] fires on a planted sample, and not on comments', () => {
    const planted = [
      '// Anthropic and cursor-acp are named in this comment only.',
      '/** Cursor: RetriableError is transport evidence. */',
      "const url = 'https://openai.example.test/v1'; // a URL is code, and this is a comment: Gemini",
      'export function decide(e: { provider: string; source: string; message: string }): string {',
      "  if (e.provider === 'cursor-acp') return 'retry';",
      "  if (e.source === 'CURSOR_ACP') return 'retry';",
      "  if (e.message.includes('overloaded_error')) return 'wait';",
      "  if (/Error: RetriableError:/.test(e.message)) return 'retry';",
      "  if (e.message.startsWith('anthropic.rate_limit_error.v1')) return 'wait';",
      "  return isGeminiQuota(e) ? 'stop' : url;",
      '}',
    ].join('\n');
    const found = scanCode('planted.ts', planted, forbidden).map((f) => `${f.line} ${f.found}`);
    expect(found).toEqual(
      expect.arrayContaining([
        '5 cursor-acp',
        '6 cursor_acp',
        '7 overloaded_error',
        '8 retriableerror',
        '9 anthropic',
        '9 anthropic.rate_limit_error.v1',
        '10 gemini',
      ]),
    );
    expect(found.filter((f) => /^[123] /.test(f))).toEqual(['3 openai']);
  });

  it('[CLS-05][CUR-39] no orchestration file names a provider, an agent or a provider signature', () => {
    const files = tsFilesUnder(orchestration);
    for (const folder of orchestration.filter((f) => f !== 'src/app'))
      expect(
        files.some((f) => f.startsWith(`${folder}/`)),
        `${folder} has files`,
      ).toBe(true);
    const findings = scan(files).filter((f) => !exempt(f));
    expect(findings.map(describeFinding)).toEqual([]);
  });

  it('[CLS-03] provider signatures live only in the catalogue, its classifier and the adapter extractors', () => {
    // The catalogue (rules), the classifier that evaluates them (the shared Cursor predicate, Codex's error
    // field), the ACP projection (the adapter extractor), the sanitizer (vendor credential formats are secrets,
    // not error signatures) and the evidence wire types may name providers; nothing else in src may. The one
    // exemption outside core: the fake provider (`recourse fake-provider`) imitates the providers' own APIs, so
    // their names and error values are its data; it makes no recovery decision.
    const owners = /^src\/(core\/(catalogue|classify|projection|sanitize|evidence)|fake-provider)\//;
    const findings = scan(tsFilesUnder(['src']).filter((f) => !owners.test(f))).filter((f) => !exempt(f));
    expect(findings.map(describeFinding)).toEqual([]);
  });

  it('lists only exemptions that are still needed', () => {
    const found = scan([...new Set(exemptions.map((e) => e.file))]);
    for (const e of exemptions)
      expect(
        found.some((f) => exempt(f) && f.file === e.file && f.found === e.found),
        JSON.stringify(e),
      ).toBe(true);
  });
});
