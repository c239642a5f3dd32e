import { describe, expect, it } from 'vitest';
import { filesToScan, scanRepositoryFile, scanSource, sharedDirVariable } from './outside-paths.js';

/**
 * A clone of the repository alone must pass its tests: no test, benchmark, lint script or config file may name a
 * path outside it. The scanner is proven on planted samples first, so that a scan which finds nothing means
 * something.
 *
 * The samples write every slash as `|` (`plant` puts the slashes back), so that this file itself names no
 * outside path.
 */
const plant = (source: string): string => source.replaceAll('|', '/');

/** What the scan flags in a planted sample, slashes written as `|` again. */
const flagged = (file: string, source: string): string[] =>
  scanSource(file, plant(source)).map((f) => `${f.line}: ${f.path.replaceAll('/', '|')}`);

describe('the self-containment scan finds planted outside paths', () => {
  it('flags the shared folder beside the repository, however it is reached', () => {
    expect(flagged('test/helpers/x.ts', "import tools from '..|shared|tools|corpus.mjs';")).toEqual([
      '1: ..|shared|tools|corpus.mjs',
    ]);
    expect(flagged('bench/x.mjs', "const dir = resolve(root, '..|shared');")).toEqual(['1: ..|shared']);
    expect(flagged('test/x.ts', 'const p = `${root}|..|shared|corpus`;')).toEqual(['1: |..|shared|corpus']);
  });

  it('flags the variable that pointed at it, in code or in a comment', () => {
    const source = `// set ${sharedDirVariable} to override\nconst dir = process.env.${sharedDirVariable};`;
    expect(flagged('test/x.ts', source)).toEqual([`1: ${sharedDirVariable}`, `2: ${sharedDirVariable}`]);
  });

  it('flags absolute paths outside the repository, in code, JSON and data files', () => {
    expect(flagged('test/x.ts', "const d = '|work|shared|corpus';\nconst t = '|tmp|recourse.db';")).toEqual([
      '1: |work|shared|corpus',
      '2: |tmp|recourse.db',
    ]);
    expect(flagged('test/x.ts', "spawnSync('|usr|local|bin|node', ['x']);")).toEqual([
      '1: |usr|local|bin|node',
    ]);
    expect(flagged('test/x.ts', "const u = new URL('file:|||home|me|corpus.jsonl');")).toEqual([
      '1: file:|||home|me|corpus.jsonl',
    ]);
    expect(flagged('test/x.ts', 'const c = `cat |work|shared|x.jsonl`;')).toEqual([
      '1: |work|shared|x.jsonl',
    ]);
    expect(
      flagged('package.json', '{\n  "scripts": { "score": "node |work|shared|tools|score.mjs" }\n}'),
    ).toEqual(['2: |work|shared|tools|score.mjs']);
    expect(flagged('test/cli/expected/x.jsonl', '{"db":"|Users|me|sim.db"}')).toEqual([
      '1: |Users|me|sim.db',
    ]);
  });

  it('flags home-relative paths and relative paths that climb above the repository root', () => {
    expect(flagged('test/x.ts', "const h = '~|.recourse|config.json';")).toEqual([
      '1: ~|.recourse|config.json',
    ]);
    expect(flagged('test/lint/x.ts', "const up = new URL('..|..|..|outside|', import.meta.url);")).toEqual([
      '1: ..|..|..|outside|',
    ]);
    expect(flagged('vitest.config.ts', "export default { root: '..' };")).toEqual(['1: ..']);
    expect(flagged('bench/x.mjs', "import x from 'src|..|..|..|x.js';")).toEqual(['1: src|..|..|..|x.js']);
  });

  it('leaves alone what stays inside, the allowed system paths, URLs, JSON pointers and comments', () => {
    const inside = [
      "import { classify } from '..|..|..|src|core|index.js';",
      "const frame = '    at connect (|home|jane|app|node_modules|undici|index.js:10:5)';",
      "const root = new URL('..|..|', import.meta.url);",
      "const fixtures = '..|fixtures|a.jsonl';",
      "const sink = '|dev|null';",
      "const status = readFileSync('|proc|self|status', 'utf8');",
      "const browser = '|usr|bin|chromium';",
      "const driver = '|usr|bin|chromedriver';",
      "const issue = { path: '|status', message: 'required' };",
      "const url = 'https:||api.example.com|work|v1|messages';",
      "const text = 'Loading... try again in 20s (1..5)';",
      '// see ..|shared|DESIGN.md and |work|shared for the decisions',
    ].join('\n');
    expect(flagged('test/core/catalogue/x.ts', inside)).toEqual([]);
  });
});

describe('no test, benchmark, script or config file names a path outside the repository', () => {
  const files = filesToScan();

  it('scans every test, bench and script file and the root config files', () => {
    expect(files.length).toBeGreaterThan(50);
    for (const file of [
      'vitest.config.ts',
      'eslint.config.js',
      'package.json',
      'tsconfig.json',
      'knip.json',
      'bench/classify.mjs',
      'scripts/import-cycles.mjs',
      'test/helpers/corpus.mjs',
      'test/cli/simulate-expected/scn-01-capacity-retries-then-skip.jsonl',
      'test/lint/self-contained.test.ts',
    ])
      expect(files).toContain(file);
  });

  it('finds no outside path', () => {
    const found = files
      .flatMap(scanRepositoryFile)
      .map((f) => `${f.file}:${f.line}: ${f.path} (${f.reason})`);
    expect(found).toEqual([]);
  });
});
