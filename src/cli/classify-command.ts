import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { BufferedOutput } from './buffered-output.js';
import { maxLineBytes, numberedLineBatches, openInput } from './read-lines.js';
import { renderPretty, renderSummary, type Tally } from './pretty-classification.js';
// The modules it runs, not the core's index: that loads every other part of the core too (policies, plans, routes,
// their schemas), a fifth of a second at every start.
import { classifyEvidence, explainEvidence, type ClassifyOptions } from '../core/classify/classify.js';
import { parseEnvelope } from '../core/evidence/parse-envelope.js';
import { parseIsoDateTime } from '../core/time/iso-time.js';
import { escapeControlsInJson } from '../core/text/escape-controls.js';

interface ClassifyFlags {
  readonly pretty?: boolean;
  readonly explain?: boolean;
  readonly now?: number;
  readonly invocation?: string;
  readonly generation?: number;
}

/**
 * `recourse classify [FILE|-]`: one evidence envelope per line in, one classification per line out, same
 * order. A line that is not a valid envelope (or is over 16 MiB: not read) prints
 * `{"error":{"line","path","message"}}` in its place and the run goes on. Exit 0 when every line was valid, 2
 * otherwise, and 2 with one line on stderr when FILE is missing, a directory, not a regular file (a FIFO: use `-`)
 * or cannot be read.
 */
export function registerClassifyCommand(program: Command): void {
  program
    .command('classify')
    .description('classify evidence envelopes (JSON Lines) into provider-neutral classifications')
    .argument('[file]', 'JSON Lines file of evidence envelopes, or - for standard input', '-')
    .option('--pretty', 'print a human summary instead of JSON Lines')
    .option('--explain', 'add every matching rule to each classification (catalogue work)')
    .option(
      '--now <iso>',
      'the clock relative hints count from when evidence has no observed_at, or one over 5 minutes ahead (default: now)',
      parseNow,
    )
    .option('--invocation <id>', 'the current invocation id: evidence from another one is stale')
    .option(
      '--generation <n>',
      'the current prompt generation: evidence from another one is stale',
      parseGeneration,
    )
    .action(async (file: string, flags: ClassifyFlags) => {
      process.exitCode = await runClassify(file, flags);
    });
}

function parseNow(value: string): number {
  const ms = parseIsoDateTime(value);
  if (ms === null)
    throw new InvalidArgumentError('expected an ISO-8601 date-time with a zone, like 2026-06-01T12:00:00Z');
  // The classifier counts from 1970 on (the epoch); an earlier clock is refused here, by the flag's name.
  if (ms < 0)
    throw new InvalidArgumentError('expected an instant from 1970-01-01T00:00:00Z to the year 9999');
  return ms;
}

function parseGeneration(value: string): number {
  const n = Number(value);
  if (!/^\d{1,15}$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

async function runClassify(file: string, flags: ClassifyFlags): Promise<number> {
  if ((flags.invocation === undefined) !== (flags.generation === undefined)) {
    process.stderr.write('recourse classify: --invocation and --generation go together\n');
    return 2;
  }
  const input = await openInput(file);
  if (!input.ok) {
    process.stderr.write(`recourse classify: ${input.message}\n`);
    return 2;
  }
  const options: ClassifyOptions = {
    now: flags.now ?? Date.now(),
    ...(flags.invocation !== undefined && flags.generation !== undefined
      ? { current: { invocationId: flags.invocation, promptGeneration: flags.generation } }
      : {}),
  };
  const tally: Tally = { total: 0, invalid: 0, byClass: new Map() };
  const out = new BufferedOutput(process.stdout);
  for await (const batch of numberedLineBatches(input.stream)) {
    for (const entry of batch) {
      if (entry.kind === 'unreadable') {
        await out.flush();
        process.stderr.write(`recourse classify: ${input.name} cannot be read: ${entry.reason}\n`);
        return 2;
      }
      if (entry.kind === 'line' && entry.text.trim() === '') continue;
      tally.total++;
      const result =
        entry.kind === 'line'
          ? classifyLine(entry.line, entry.text, options, flags.explain === true)
          : tooLong(entry.line, entry.bytes);
      if ('error' in result) tally.invalid++;
      else tally.byClass.set(result.class, (tally.byClass.get(result.class) ?? 0) + 1);
      out.add(
        flags.pretty ? renderPretty(entry.line, result) : `${escapeControlsInJson(JSON.stringify(result))}\n`,
      );
      if (out.full) await out.flush();
    }
    // A write per batch of input (and one per 64 KiB of output within a large batch), in input order.
    await out.flush();
  }
  if (flags.pretty) out.add(renderSummary(tally));
  await out.flush();
  return tally.invalid === 0 ? 0 : 2;
}

function tooLong(line: number, bytes: number): LineResult {
  return {
    error: {
      line,
      path: '',
      message: `line of ${bytes} bytes is longer than ${maxLineBytes}; it was not read`,
    },
  };
}

type LineResult =
  | { readonly error: { readonly line: number; readonly path: string; readonly message: string } }
  | (ReturnType<typeof classifyEvidence> & { readonly matches?: unknown });

function classifyLine(line: number, text: string, options: ClassifyOptions, explain: boolean): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Node's parser message quotes the line itself (all of it when it is short): say where, never what.
    return { error: { line, path: '', message: `malformed JSON: ${jsonErrorPlace(error)}` } };
  }
  const parsed = parseEnvelope(value);
  if (!parsed.ok) {
    const first = parsed.issues[0]!;
    return { error: { line, path: first.path, message: first.message } };
  }
  if (!explain) return classifyEvidence(parsed.evidence, options);
  const explanation = explainEvidence(parsed.evidence, options);
  return { ...explanation.classification, matches: explanation.matches };
}

/** Where JSON.parse gave up ("at position 12", "unexpected end"), without the text it quotes. */
function jsonErrorPlace(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const position = /position (\d{1,12})/.exec(message);
  if (position) return `unexpected input at position ${position[1]}`;
  if (/end of (?:json|data) input|unexpected end/i.test(message)) return 'unexpected end of input';
  return 'not a JSON value';
}
