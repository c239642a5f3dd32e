import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The root export is the embedding surface and is curated: this list is the contract. A new root export fails
 * here until it is added to the list on purpose (everything else belongs on a subpath).
 */
const curated = [
  'Classification',
  'DispatchIntent',
  'DynamicProfile',
  'DynamicProfileInput',
  'Engine',
  'EngineEvent',
  'ErrorCode',
  'EvidenceEnvelope',
  'EvidenceHints',
  'JsonValue',
  'Recourse',
  'RecourseError',
  'RecourseOptions',
  'ReconciliationReport',
  'ReplayEvent',
  'ReplayProgress',
  'ResponseLike',
  'RouteOutcome',
  'RouteSnapshot',
  'RouteTurn',
  'RunAttempt',
  'RunAttemptFunction',
  'RunResult',
  'VersionConflictError',
  'classify',
  'errorCodes',
  'evidenceOfError',
  'evidenceOfResponse',
  'openRecourse',
];

/** Every name a module exports, types included, as the compiler sees it. */
function exportedNames(entry: string): string[] {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
  return checker
    .getExportsOfModule(symbol!)
    .map((s) => s.getName())
    .sort();
}

describe('the package', () => {
  it('exports exactly the curated embedding surface at its root', () => {
    expect(exportedNames('src/index.ts')).toEqual([...curated].sort());
  });

  it('offers the rest on subpaths, ships its docs, and says it is ESM for Node 20.19 and later', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      type: string;
      engines: { node: string };
      files: string[];
      exports: Record<string, { types: string; default: string }>;
    };
    expect(pkg.type).toBe('module');
    expect(pkg.engines.node).toBe('>=20.19');
    expect(pkg.files).toContain('docs');
    expect(Object.keys(pkg.exports)).toEqual([
      '.',
      './core',
      './engine',
      './store',
      './app',
      './package.json',
    ]);
    // Each subpath resolves through the exports map to a built module (the vitest setup built dist/): Node's own
    // resolver, by the package's name from inside it (self-reference), as an installed package resolves.
    const probe = [
      "const core = await import('recourse/core');",
      "const engine = await import('recourse/engine');",
      "const store = await import('recourse/store');",
      "const app = await import('recourse/app');",
      'console.log([typeof core.decide, typeof engine.Engine, typeof store.openSqliteDatabase, typeof app.openRecourse].join());',
    ].join('\n');
    const resolved = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    expect(resolved.stderr).toBe('');
    expect(resolved.stdout.trim()).toBe('function,function,function,function');
    expect(readFileSync('README.md', 'utf8')).toMatch(/ESM[^.]*Node\.js 20\.19/);
  });
});
