import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { readRepoFile, scanCode, tsFilesUnder, type Finding } from './code-scan.js';
import { hardCodes, transientCodes } from '../../src/core/index.js';

/**
 * Callers never keep their own copies of provider error tables or retry schedules (CAL-04). Two scans of src,
 * comments excluded:
 *
 * - The provider codes (every transient and hard code, read from the catalogue) appear only where they are
 *   owned or presented: the catalogue declares them; the classifier applies the catalogue's window promotion
 *   (`rate_limited` to `quota_limited`); policy reads legacy per-code keys; the notice maps codes to human words
 *   (presentation, not a decision); plan errors map codes to plan categories (seed 004); the fake provider names them as its script contract. Anywhere else a code
 *   list is a copy that can drift: callers act on the class.
 * - Retry schedules (a literal table of delays that double, or an exponential `2 ** n`) appear only in policy
 *   (class policies and their schedule) and in the one concrete-profile delay function of CUR-36
 *   (`interactiveRetryDefaults`, wherever it lives), besides the catalogue's own timing extractors.
 */

// src/fake-provider is exempt: its fault names (`rate_limited`, the contract of docs/fake-provider.md) are what a
// script asks the fake to send, not a table a caller acts on.
const codeOwners = /^src\/(core\/(catalogue|classify|policy|notice|plan)|fake-provider)\//;
const scheduleOwners = /^src\/core\/(catalogue|policy)\//;
const providerCodes = new Set<string>([...transientCodes, ...hardCodes]);

function codeFindings(file: string, text: string): Finding[] {
  return scanCode(file, text, { names: new Set(), signatures: providerCodes });
}

/** Literal delay tables that double and exponential computations, by line. */
function scheduleFindings(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`);
  const isTwo = (node: ts.Node) => ts.isNumericLiteral(node) && Number(node.text) === 2;
  // `1 << (c & 31)`: a bit of a 32-bit word picked by an index masked to 0-31, a set's member, not a schedule.
  const isBitIndex = (node: ts.Expression): boolean => {
    const inner = ts.isParenthesizedExpression(node) ? node.expression : node;
    return (
      ts.isBinaryExpression(inner) &&
      inner.operatorToken.kind === ts.SyntaxKind.AmpersandToken &&
      ts.isNumericLiteral(inner.right) &&
      inner.right.text === '31'
    );
  };
  const visit = (node: ts.Node) => {
    if (ts.isArrayLiteralExpression(node) && node.elements.length >= 3) {
      const values = node.elements.map((e) => (ts.isNumericLiteral(e) ? Number(e.text) : NaN));
      const increasing = values.every((v, i) => v > 0 && (i === 0 || v > values[i - 1]!));
      const doublings = values.filter((v, i) => i > 0 && v === 2 * values[i - 1]!).length;
      if (increasing && doublings >= 2) at(node, `delay table ${node.getText(source)}`);
    }
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.AsteriskAsteriskToken && isTwo(node.left)) at(node, 'exponential 2 ** n');
      if (
        op === ts.SyntaxKind.LessThanLessThanToken &&
        ts.isNumericLiteral(node.left) &&
        node.left.text === '1' &&
        !isBitIndex(node.right)
      )
        at(node, 'exponential 1 << n');
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.getText(source) === 'Math.pow' &&
      node.arguments[0] !== undefined &&
      isTwo(node.arguments[0])
    )
      at(node, 'exponential Math.pow(2, n)');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sources = tsFilesUnder(['src']);

/** The one concrete-profile delay function (CUR-36): the file that declares it owns its delay table. */
const concreteProfileOwners = sources.filter((f) =>
  /export\s+const\s+interactiveRetryDefaults\b/.test(readRepoFile(f)),
);

describe('callers keep no copies of provider tables or retry schedules', () => {
  it('[CAL-04] flags a planted caller that copies a code table and a backoff schedule', () => {
    const planted = [
      '// rate_limited in a comment is fine',
      "const onCode = { rate_limited: 'retry', quota_limited: 'stop' } as const;",
      "const codes = ['provider_overloaded', 'model_capacity'];",
      'const delaysMs = [1000, 2000, 4000, 8000];',
      'const backoff = (n: number) => 500 * 2 ** n;',
      'const shifted = (n: number) => 1 << n;',
      'const bitOfSet = (c: number) => 1 << (c & 31);',
      'const pow = (n: number) => Math.pow(2, n);',
      'const notASchedule = [1, 60, 3600, 86400];',
    ].join('\n');
    expect(codeFindings('caller.ts', planted).map((f) => `${f.line} ${f.found}`)).toEqual(
      expect.arrayContaining([
        '2 rate_limited',
        '2 quota_limited',
        '3 provider_overloaded',
        '3 model_capacity',
      ]),
    );
    expect(codeFindings('caller.ts', planted).filter((f) => f.line === 1)).toEqual([]);
    expect(scheduleFindings('caller.ts', planted)).toEqual([
      'caller.ts:4 delay table [1000, 2000, 4000, 8000]',
      'caller.ts:5 exponential 2 ** n',
      'caller.ts:6 exponential 1 << n',
      'caller.ts:8 exponential Math.pow(2, n)',
    ]);
  });

  it('[CAL-04] no file outside the code owners names a provider code', () => {
    const findings = sources
      .filter((f) => !codeOwners.test(f))
      .flatMap((f) => codeFindings(f, readRepoFile(f)))
      .map((f) => `${f.file}:${f.line} ${f.found}`);
    expect(findings).toEqual([]);
  });

  it('[CAL-04][CUR-36] only policy and the one concrete-profile delay function hold a retry schedule', () => {
    expect(concreteProfileOwners.length, concreteProfileOwners.join(', ')).toBeLessThanOrEqual(1);
    const findings = sources
      .filter((f) => !scheduleOwners.test(f) && !concreteProfileOwners.includes(f))
      .flatMap((f) => scheduleFindings(f, readRepoFile(f)));
    expect(findings).toEqual([]);
  });

  it('[CAL-04] recognizes the schedules the owners do hold', () => {
    // Proof the scan sees real tables: the policy's exponential and the concrete-profile delay table.
    const policy = sources.filter((f) => scheduleOwners.test(f) && f.startsWith('src/core/policy/'));
    expect(policy.flatMap((f) => scheduleFindings(f, readRepoFile(f))).join('\n')).toMatch(
      /exponential 2 \*\* n/,
    );
    for (const owner of concreteProfileOwners)
      expect(scheduleFindings(owner, readRepoFile(owner)).join('\n')).toMatch(/delay table/);
  });
});
