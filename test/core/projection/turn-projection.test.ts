import { describe, expect, it } from 'vitest';
import {
  catalogueRules,
  classify,
  codexCapacityDiagnostic,
  cursorConstantDiagnostic,
  matchCursorRetriableDiagnostic,
  observeUpdate,
  settleTurn,
  startTurn,
  type TurnProjection,
} from '../../../src/core/index.js';

const at = Date.parse('2026-06-01T12:00:00Z');
const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const thought = (text: string) => ({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } });
const toolCall = { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read File', status: 'pending' };
const toolUpdate = { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' };

/** Feeds updates to a turn of `adapter` at generation `gen`; returns the turn and which updates were suppressed. */
function run(updates: unknown[], adapter = 'cursor-acp', gen = 3, fromAdapter = adapter, fromGen = gen) {
  let turn: TurnProjection = startTurn(adapter, gen);
  const suppressed: boolean[] = [];
  for (const update of updates) {
    const o = observeUpdate(turn, { adapterId: fromAdapter, promptGeneration: fromGen, update });
    turn = o.turn;
    suppressed.push(o.suppress);
  }
  return { turn, suppressed, outcome: settleTurn(turn, at) };
}

describe('Cursor normal-completion failure projection', () => {
  it('[CUR-01][CUR-11][CUR-12][CUR-18][CUR-19][CUR-20][CUR-21] projects a matching chunk into exactly one constant error', () => {
    const r = run([
      chunk(
        'Error: RetriableError: HTTP/2 stream closed with error code INTERNAL_ERROR (0x2) secret-ish text',
      ),
    ]);
    expect(r.suppressed).toEqual([true]);
    expect(r.outcome.outcome).toBe('error');
    if (r.outcome.outcome !== 'error') return;
    expect(r.outcome.error).toMatchObject({
      source: 'cursor_acp',
      provider_id: 'cursor-acp',
      diagnostic: 'Error: RetriableError: HTTP/2 stream closed with error code CANCEL (0x8)',
      prompt_generation: 3,
      occurred_at: '2026-06-01T12:00:00Z',
    });
    expect(JSON.stringify(r.outcome.error)).not.toContain('secret-ish');
  });

  it('[CUR-05] matches the prefix case-insensitively after trimming', () => {
    expect(run([chunk('  \n error: retriableerror: Connection stalled \n')]).outcome.outcome).toBe('error');
    expect(run([chunk('ERROR: RETRIABLEERROR: x')]).outcome.outcome).toBe('error');
  });

  it('[CUR-05] does not match prose before the prefix', () => {
    const r = run([chunk('The tool said Error: RetriableError: Connection stalled')]);
    expect(r.suppressed).toEqual([false]);
    expect(r.outcome).toEqual({ outcome: 'complete' });
  });

  it('[CUR-06] requires a non-empty suffix', () => {
    expect(run([chunk('Error: RetriableError:')]).outcome).toEqual({ outcome: 'complete' });
    expect(run([chunk('Error: RetriableError:   \u3000 ')]).outcome).toEqual({ outcome: 'complete' });
  });

  it('[CUR-06] bounds the suffix at 256 UTF-8 bytes after Unicode trimming, multi-byte text included', () => {
    expect(matchCursorRetriableDiagnostic(`Error: RetriableError: ${'a'.repeat(256)}`).matched).toBe(true);
    expect(matchCursorRetriableDiagnostic(`Error: RetriableError: ${'a'.repeat(257)}`).matched).toBe(false);
    // 85 three-byte characters = 255 bytes fit; 86 = 258 bytes do not.
    expect(matchCursorRetriableDiagnostic(`Error: RetriableError: ${'€'.repeat(85)}`).matched).toBe(true);
    expect(matchCursorRetriableDiagnostic(`Error: RetriableError: ${'€'.repeat(86)}`).matched).toBe(false);
    // Trimming happens before measuring: surrounding Unicode spaces do not count.
    expect(
      matchCursorRetriableDiagnostic(`Error: RetriableError:\u2003${'a'.repeat(256)}\u00a0\u3000`).matched,
    ).toBe(true);
    // A 4-byte emoji at the edge: 64 of them are exactly 256 bytes.
    expect(matchCursorRetriableDiagnostic(`Error: RetriableError: ${'😀'.repeat(64)}`).matched).toBe(true);
    expect(matchCursorRetriableDiagnostic(`Error: RetriableError: ${'😀'.repeat(64)}a`).matched).toBe(false);
  });

  it('[CUR-07] accepts suffixes that do not describe an HTTP/2 reset', () => {
    expect(run([chunk('Error: RetriableError: [unavailable] PING timed out')]).outcome.outcome).toBe('error');
    expect(run([chunk('Error: RetriableError: Connection stalled')]).outcome.outcome).toBe('error');
  });

  it('[CUR-08][CUR-25] vetoes cancellation, deadline and escalation, but not Cursor [canceled]', () => {
    for (const veto of ['context canceled', 'Context Deadline Exceeded', 'cancel escalated: gave up']) {
      expect(run([chunk(`Error: RetriableError: ${veto}`)]).outcome, veto).toEqual({ outcome: 'complete' });
    }
    expect(run([chunk('Error: RetriableError: [canceled] HTTP/2 stream closed')]).outcome.outcome).toBe(
      'error',
    );
  });

  it('[CUR-03] never matches other adapters', () => {
    expect(run([chunk('Error: RetriableError: Connection stalled')], 'claude-acp').outcome).toEqual({
      outcome: 'complete',
    });
    const foreign = run([chunk('Error: RetriableError: Connection stalled')], 'cursor-acp', 3, 'gemini-acp');
    expect(foreign.suppressed).toEqual([false]);
    expect(foreign.outcome).toEqual({ outcome: 'complete' });
  });

  it('[CUR-04] ignores stale generations and generation zero', () => {
    expect(
      run([chunk('Error: RetriableError: Connection stalled')], 'cursor-acp', 3, 'cursor-acp', 2).outcome,
    ).toEqual({
      outcome: 'complete',
    });
    expect(run([chunk('Error: RetriableError: Connection stalled')], 'cursor-acp', 0).outcome).toEqual({
      outcome: 'complete',
    });
  });

  it('[CUR-04] only assistant message chunks match (a thought with the prefix does not)', () => {
    expect(run([thought('Error: RetriableError: Connection stalled')]).outcome).toEqual({
      outcome: 'complete',
    });
  });

  it('[CUR-09] checks identity, event type and prefix before the suffix', () => {
    // The shared matcher reports the first check that failed: prefix, then suffix emptiness and bound, then vetoes.
    expect(matchCursorRetriableDiagnostic('hello').matched).toBe(false);
    expect(matchCursorRetriableDiagnostic('hello')).toEqual({ matched: false, reason: 'no_prefix' });
    expect(matchCursorRetriableDiagnostic('Error: RetriableError: ')).toEqual({
      matched: false,
      reason: 'empty_suffix',
    });
    expect(
      matchCursorRetriableDiagnostic(`Error: RetriableError: ${'x'.repeat(300)} context canceled`),
    ).toEqual({
      matched: false,
      reason: 'suffix_too_long',
    });
    expect(matchCursorRetriableDiagnostic('Error: RetriableError: context canceled')).toEqual({
      matched: false,
      reason: 'vetoed',
    });
  });

  it('[CUR-13] a later non-empty assistant or thought chunk clears the marker', () => {
    expect(
      run([chunk('Error: RetriableError: Connection stalled'), chunk('Here is the answer')]).outcome,
    ).toEqual({
      outcome: 'complete',
    });
    expect(
      run([chunk('Error: RetriableError: Connection stalled'), thought('thinking again')]).outcome,
    ).toEqual({
      outcome: 'complete',
    });
    // Empty or whitespace chunks are not renewed activity.
    expect(run([chunk('Error: RetriableError: Connection stalled'), chunk('  ')]).outcome.outcome).toBe(
      'error',
    );
  });

  it('[CUR-14] a new tool call clears the marker', () => {
    expect(run([chunk('Error: RetriableError: Connection stalled'), toolCall]).outcome).toEqual({
      outcome: 'complete',
    });
  });

  it('[CUR-16] an update for an in-flight tool does not clear the marker', () => {
    expect(
      run([toolCall, chunk('Error: RetriableError: Connection stalled'), toolUpdate]).outcome.outcome,
    ).toBe('error');
  });

  it('[CUR-15] a later matching chunk re-arms the marker', () => {
    const r = run([
      chunk('Error: RetriableError: Connection stalled'),
      chunk('resuming'),
      chunk('Error: RetriableError: [unavailable] PING timed out'),
    ]);
    expect(r.suppressed).toEqual([true, false, true]);
    expect(r.outcome.outcome).toBe('error');
  });

  it('[CUR-13] activity of a stale generation does not clear the marker', () => {
    let turn = startTurn('cursor-acp', 3);
    turn = observeUpdate(turn, {
      adapterId: 'cursor-acp',
      promptGeneration: 3,
      update: chunk('Error: RetriableError: x'),
    }).turn;
    turn = observeUpdate(turn, {
      adapterId: 'cursor-acp',
      promptGeneration: 2,
      update: chunk('late output'),
    }).turn;
    expect(settleTurn(turn, at).outcome).toBe('error');
  });

  it('[CUR-22][CUR-23][CUR-24] the projected error classifies as high-confidence transient agent_transport_lost', () => {
    const r = run([chunk('Error: RetriableError: Connection stalled')]);
    if (r.outcome.outcome !== 'error') throw new Error('expected an error');
    const c = classify(r.outcome.error.evidence, { now: at });
    expect(c).toMatchObject({
      code: 'agent_transport_lost',
      class: 'transient',
      confidence: 'high',
      classifier_rule: 'cursor.retriable_stream_reset.v1',
      provider_id: 'cursor-acp',
    });
    expect(cursorConstantDiagnostic.endsWith('.')).toBe(false);
  });

  it('[CUR-10] the catalogue rule and the observer share one matcher', () => {
    const rule = catalogueRules.find((r) => r.id === 'cursor.retriable_stream_reset.v1')!;
    expect(rule.when.predicate).toBe('cursor_retriable_diagnostic');
    for (const text of [
      'Error: RetriableError: x',
      'error: retriableerror:  ',
      `Error: RetriableError: ${'y'.repeat(257)}`,
    ]) {
      const viaRule = classify(
        { kind: 'acp_error', error: { code: -32603, message: text } },
        { now: at },
      ).classifier_rule;
      expect(viaRule === 'cursor.retriable_stream_reset.v1', text).toBe(
        matchCursorRetriableDiagnostic(text).matched,
      );
    }
  });

  it('[CUR-26] generic transport loss is not widened to Cursor text', () => {
    const c = classify({ kind: 'stderr', text: 'RetriableError: Connection stalled' }, { now: at });
    expect(c).toMatchObject({ class: 'unclassified', reason: 'unknown' });
  });

  it('[CUR-04] ignores malformed updates: only a normalized assistant chunk can match', () => {
    expect(run([null, 'text', { content: 'x' }, { sessionUpdate: 5 }]).outcome).toEqual({
      outcome: 'complete',
    });
  });
});

describe('Codex capacity projection (the same mechanism)', () => {
  const systemError = { sessionUpdate: 'session_info_update', _meta: { systemError: true } };

  it('[CUR-01] a system-error marker and a capacity chunk of one generation end the turn as model_capacity', () => {
    const r = run(
      [systemError, chunk('Selected model is at capacity. Please try a different model.')],
      'codex-acp',
    );
    expect(r.suppressed).toEqual([false, true]);
    if (r.outcome.outcome !== 'error') throw new Error('expected an error');
    expect(r.outcome.error).toMatchObject({
      source: 'codex_acp',
      provider_id: 'codex-acp',
      diagnostic: codexCapacityDiagnostic,
    });
    expect(classify(r.outcome.error.evidence, { now: at })).toMatchObject({
      code: 'model_capacity',
      class: 'transient',
    });
  });

  it('[CUR-01] the marker alone, the chunk alone, and stale generations do nothing', () => {
    expect(run([systemError], 'codex-acp').outcome).toEqual({ outcome: 'complete' });
    const alone = run([chunk('Model is at capacity.')], 'codex-acp');
    expect(alone.suppressed).toEqual([false]);
    expect(alone.outcome).toEqual({ outcome: 'complete' });
    expect(run([systemError, chunk('Model is at capacity')], 'codex-acp', 4, 'codex-acp', 3).outcome).toEqual(
      { outcome: 'complete' },
    );
  });

  it('[CUR-01] later output clears it', () => {
    expect(
      run([systemError, chunk('Selected model is at capacity.'), chunk('retried fine')], 'codex-acp').outcome,
    ).toEqual({
      outcome: 'complete',
    });
  });
});
