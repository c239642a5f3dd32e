import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AcpAgent,
  AcpLaunchError,
  runAcpTurn,
  type TurnResult,
  type UpdateInfo,
} from '../../src/acp/index.js';
import { cursorConstantDiagnostic, type EvidenceEnvelope } from '../../src/core/index.js';
import { repoRoot, scriptedRecipe } from './acp-harness.js';

// Every test here drives the scripted ACP agent: a real child process over real stdio pipes (the SDK on both sides).

type Seen = { update: Readonly<Record<string, unknown>>; info: UpdateInfo };

async function turn(scenario: string, agent = 'scripted', fields: Record<string, unknown> = {}) {
  const seen: Seen[] = [];
  const result = await runAcpTurn(scriptedRecipe(scenario, { agent, ...fields }), {
    prompt: 'fix the bug',
    invocationId: 'inv-1',
    onUpdate: (update, info) => seen.push({ update, info }),
  });
  return { result, seen };
}

function failed(result: TurnResult) {
  if (result.outcome !== 'failure') throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

const textsOf = (seen: Seen[]) =>
  seen
    .filter((s) => s.update.sessionUpdate === 'agent_message_chunk' && !s.info.suppressed)
    .map((s) => (s.update.content as { text: string }).text);

describe('ACP adapter over a real transport', () => {
  it('[EVD-01] a success ends as success with the stop reason; updates stream in wire order', async () => {
    const { result, seen } = await turn('success');
    expect(result).toMatchObject({
      outcome: 'success',
      stopReason: 'end_turn',
      generation: 1,
      resumed: false,
    });
    expect(seen.map((s) => s.update.sessionUpdate)).toEqual(['agent_thought_chunk', 'agent_message_chunk']);
    expect(seen.every((s) => s.info.generation === 1)).toBe(true);
  });

  it('[EVD-01] structured JSON-RPC errors answering session/prompt are classified, correlated to invocation, generation and phase', async () => {
    const expected: Record<string, string> = {
      capacity_error: 'provider_overloaded',
      rate_limit_error: 'rate_limited',
      auth_error: 'auth_required',
      codex_error_frame: 'model_capacity',
    };
    for (const [scenario, code] of Object.entries(expected)) {
      const { result } = await turn(scenario);
      const f = failed(result);
      expect(f.evidence).toMatchObject({
        kind: 'acp_error',
        agent: 'scripted',
        invocation_id: 'inv-1',
        prompt_generation: 1,
        phase: 'prompt',
      });
      expect(f.classification.code, scenario).toBe(code);
      expect(f.safety).toEqual({ safe: true, basis: 'pre_result' });
    }
  });

  it('[EVD-01] a crash is process-exit evidence with its exit code or signal and the managed stderr tail', async () => {
    const exit = failed((await turn('crash_exit')).result);
    expect(exit.evidence).toMatchObject({
      kind: 'process_exit',
      exit_code: 3,
      signal: null,
      stderr_tail: 'fatal: the scripted agent crashed\n',
      phase: 'prompt',
      prompt_generation: 1,
    });
    const killed = failed((await turn('crash_signal')).result);
    expect(killed.evidence).toMatchObject({ kind: 'process_exit', exit_code: null, signal: 'SIGKILL' });
    expect(killed.classification).toMatchObject({ code: 'local_runtime', class: 'unclassified' });
  });

  it("[EVD-01] a generic JSON-RPC error is explained by this prompt's stderr when only stderr names the cause", async () => {
    const f = failed((await turn('error_with_stderr')).result);
    expect(f.evidence.kind).toBe('stderr');
    expect(f.classification).toMatchObject({
      code: 'provider_overloaded',
      class: 'transient',
      confidence: 'high',
    });
  });

  it("[EVD-01] a stderr line read just after the agent's generic error still explains it (the pipes are separate)", async () => {
    const f = failed((await turn('error_then_stderr')).result);
    expect(f.evidence.kind).toBe('stderr');
    expect(f.classification).toMatchObject({ code: 'provider_overloaded', class: 'transient' });
  });

  it('[EVD-01] a frame over the 32 MiB limit ends the turn with evidence that says so, not only the broken pipe it caused', async () => {
    const { result } = await turn('oversized');
    const f = failed(result);
    expect(f.evidence).toMatchObject({ kind: 'process_exit', phase: 'prompt', prompt_generation: 1 });
    expect((f.evidence as { stderr_tail: string }).stderr_tail).toMatch(
      /the agent sent an ACP message over 33554432 bytes; Recourse closed the connection$/,
    );
  });

  it('[EVD-03] a session/new answered without a session id fails the session_new phase as a protocol error; nothing is prompted', async () => {
    const { result, seen } = await turn('no_session_id');
    const f = failed(result);
    expect(result).toMatchObject({ sessionId: null, generation: 0 });
    expect(f.evidence).toMatchObject({
      kind: 'sdk_exception',
      name: 'AcpProtocolError',
      message: 'the agent answered session/new without a session id (a non-empty string)',
      phase: 'session_new',
      invocation_id: 'inv-1',
    });
    expect(f.classification.class).toBe('unclassified');
    expect(seen).toEqual([]);
  });

  it('[EVD-03] initialize answered with null fails the initialize phase as a protocol error', async () => {
    const f = failed((await turn('bad_initialize')).result);
    // Not the agent's exit by the grace's SIGTERM: the agent did not exit, it answered wrong.
    expect(f.evidence).toMatchObject({
      kind: 'sdk_exception',
      name: 'AcpProtocolError',
      message: 'the agent answered initialize with no object',
      phase: 'initialize',
    });
  });

  it('capabilities and auth methods of the wrong shape in the initialize answer are absent, not a crash', async () => {
    const { result, seen } = await turn('odd_capabilities');
    expect(result).toMatchObject({ outcome: 'success', stopReason: 'end_turn' });
    expect(textsOf(seen)).toEqual(['fine']);
  });

  it('[EVD-01] an agent that closes its output and lives on is ended after the grace; the evidence says Recourse sent the signal', async () => {
    const f = failed((await turn('close_output', 'scripted', { shutdown_grace_ms: 300 })).result);
    expect(f.evidence).toMatchObject({ kind: 'process_exit', phase: 'prompt', signal: 'SIGTERM' });
    expect((f.evidence as { stderr_tail: string }).stderr_tail).toMatch(
      /the ACP connection closed while the agent ran on; Recourse ended it after the 300 ms grace$/,
    );
  });

  it('[EVD-01] stderr noise stays bounded by the recipe and does not fail a turn', async () => {
    const agent = AcpAgent.launch(scriptedRecipe('stderr_noise', { stderr_tail_bytes: 1024 }), {
      invocationId: 'inv-n',
    });
    try {
      expect((await agent.open()).ok).toBe(true);
      expect(await agent.prompt('x')).toMatchObject({ outcome: 'success' });
      // Standard error is its own pipe: the answer on standard output may be read before all of the noise (a loaded
      // machine reads them in either order). Wait for the noise the agent wrote (a hang guard, not a measure).
      const written = 'debug: noise line that means nothing\n'.length * 2000;
      for (let i = 0; i < 500 && agent.process.stderr.totalBytes < written; i++) await sleep(20);
      const tail = agent.process.stderr.text();
      expect(Buffer.byteLength(tail)).toBe(1024);
      expect(agent.process.stderr.totalBytes).toBe(written);
    } finally {
      await agent.shutdown();
    }
  });

  it('[CUR-02][CUR-17] the prompt barrier: 300 chunks written right before the answer are all applied before the turn is judged', async () => {
    const { result, seen } = await turn('burst');
    expect(result.outcome).toBe('success');
    expect(seen).toHaveLength(300);
    expect(textsOf(seen)).toEqual(Array.from({ length: 300 }, (_, i) => `part ${i} `));
  });

  it('[SAF-12][CUR-35] the same burst ending in an error: the snapshot the gate judged holds every chunk sent before the error', async () => {
    const f = failed((await turn('burst_error')).result);
    expect(f.replay?.counts.assistant_output).toBe(300);
    expect(f.safety).toEqual({ safe: false, reason: 'assistant_output' });
  });

  it('[CUR-17][CUR-18] a Cursor marker arriving as the last frame before end_turn still ends the turn as one error', async () => {
    const f = failed((await turn('cursor_marker_last', 'cursor-acp')).result);
    expect(f.evidence).toMatchObject({ kind: 'acp_error', error: { message: cursorConstantDiagnostic } });
  });

  it('[CUR-11][CUR-18] Cursor normal-completion failure: the control chunk is suppressed and the turn ends as exactly one provider error with the constant diagnostic', async () => {
    const { result, seen } = await turn('cursor_normal_completion', 'cursor-acp');
    const f = failed(result);
    expect(f.evidence).toMatchObject({
      kind: 'acp_error',
      provider: 'cursor-acp',
      agent: 'cursor-acp',
      invocation_id: 'inv-1',
      prompt_generation: 1,
      error: { code: -32603, message: cursorConstantDiagnostic },
    });
    // The raw assistant text never reaches the structured diagnostic (CUR-21).
    expect(JSON.stringify(f.evidence)).not.toContain('PING timed out');
    expect(f.classification).toMatchObject({
      code: 'agent_transport_lost',
      class: 'transient',
      classifier_rule: 'cursor.retriable_stream_reset.v1',
    });
    expect(seen.map((s) => s.info.suppressed)).toEqual([true]);
    expect(textsOf(seen)).toEqual([]);
    // The suppressed chunk is no output: the turn is replayable at the safe point.
    expect(f.safety).toEqual({ safe: true, basis: 'pre_result' });
  });

  it('[CUR-13] a later assistant or thought chunk of the same generation clears the marker: the turn completes', async () => {
    expect((await turn('cursor_resumed_by_text', 'cursor-acp')).result.outcome).toBe('success');
    expect((await turn('cursor_resumed_by_thought', 'cursor-acp')).result.outcome).toBe('success');
  });

  it('[CUR-14] a new tool call clears the marker', async () => {
    expect((await turn('cursor_resumed_by_tool_call', 'cursor-acp')).result.outcome).toBe('success');
  });

  it('[CUR-15] a later matching control chunk sets the marker again', async () => {
    const f = failed((await turn('cursor_rearmed', 'cursor-acp')).result);
    expect(f.classification.code).toBe('agent_transport_lost');
    // Output came between the markers: the turn is not replayable.
    expect(f.safety).toEqual({ safe: false, reason: 'assistant_output' });
  });

  it('[CUR-16] an update of a tool call already in flight does not clear the marker', async () => {
    const f = failed((await turn('cursor_tool_update_keeps_marker', 'cursor-acp')).result);
    expect(f.evidence).toMatchObject({ error: { message: cursorConstantDiagnostic } });
  });

  it('[CUR-03] another adapter receiving the same frames never projects them: the chunk is ordinary output', async () => {
    const { result, seen } = await turn('cursor_normal_completion', 'claude');
    expect(result.outcome).toBe('success');
    expect(seen.map((s) => s.info.suppressed)).toEqual([false]);
  });

  it('[CUR-30] the observed incident: thoughts and a Read File tool call in flight, then the marker: transient, yet manual recovery', async () => {
    const f = failed((await turn('cursor_incident', 'cursor-acp')).result);
    expect(f.classification).toMatchObject({ code: 'agent_transport_lost', class: 'transient' });
    expect(f.safety).toEqual({ safe: false, reason: 'tool_activity' });
    expect(f.replay?.counts).toMatchObject({ thought: 1, tool_call: 1, assistant_output: 0 });
  });

  it('Codex capacity projection: system-error session info plus the capacity chunk ends as one model_capacity error', async () => {
    const { result, seen } = await turn('codex_capacity', 'codex-acp');
    const f = failed(result);
    expect(f.evidence).toMatchObject({
      provider: 'codex-acp',
      error: { message: 'Selected model is at capacity. Please try a different model.' },
    });
    expect(f.classification).toMatchObject({ code: 'model_capacity', class: 'transient' });
    expect(textsOf(seen)).toEqual([]);
  });

  it('[SAF-06] Cursor capacity pattern: the capacity chunk matching the structured error is a diagnostic, not output', async () => {
    const f = failed((await turn('cursor_capacity', 'cursor-acp')).result);
    expect(f.classification).toMatchObject({ code: 'model_capacity', class: 'transient' });
    expect(f.safety).toEqual({ safe: true, basis: 'matching_diagnostic' });
  });

  it('[SAF-04][SAF-13] an error after streamed text or after a tool call is not replayable', async () => {
    const afterText = failed((await turn('error_after_text')).result);
    expect(afterText.classification.code).toBe('provider_overloaded');
    expect(afterText.safety).toEqual({ safe: false, reason: 'assistant_output' });
    const afterTool = failed((await turn('error_after_tool_call')).result);
    expect(afterTool.safety).toEqual({ safe: false, reason: 'tool_activity' });
    expect(afterTool.replay?.counts).toMatchObject({ tool_call: 1, tool_update: 1 });
  });

  it('[SAF-09][SAF-10][SAF-11] replay evidence is recorded per prompt generation, keyed by session, execution and generation, as a frozen snapshot', async () => {
    const agent = AcpAgent.launch(scriptedRecipe('error_after_text'), {
      invocationId: 'inv-7',
      replaySessionId: 'route-7',
    });
    try {
      expect((await agent.open()).ok).toBe(true);
      const first = failed(await agent.prompt('one'));
      const second = failed(await agent.prompt('two'));
      expect(first.replay?.key).toEqual({ sessionId: 'route-7', executionId: 'inv-7', promptGeneration: 1 });
      expect(second.replay?.key).toEqual({ sessionId: 'route-7', executionId: 'inv-7', promptGeneration: 2 });
      // The second generation counts only its own chunk, not the first one's.
      expect(second.replay?.counts.assistant_output).toBe(1);
      expect(second.evidence).toMatchObject({ prompt_generation: 2, invocation_id: 'inv-7' });
      expect(Object.isFrozen(first.replay)).toBe(true);
      expect(first.replay?.counts.assistant_output).toBe(1);
    } finally {
      await agent.shutdown();
    }
  });

  it('[OUT-01][CUR-34] a hung prompt produces no outcome while it is open; cancel ends it cleanly', async () => {
    const agent = AcpAgent.launch(scriptedRecipe('hang'), { invocationId: 'inv-h', onUpdate: () => seen() });
    let seen: () => void = () => undefined;
    const working = new Promise<void>((resolve) => (seen = resolve));
    try {
      expect((await agent.open()).ok).toBe(true);
      let settled: unknown = null;
      const pending = agent.prompt('x').then((r) => (settled = r));
      await working;
      // The agent is now silent. However long that lasts, nothing is inferred from it: let the event loop run
      // through many turns and check that the prompt is still open.
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBeNull();
      await agent.cancel();
      expect(await pending).toEqual({ outcome: 'cancelled', generation: 1 });
      expect(agent.evidence.filter((e) => e.kind === 'acp_error' || e.kind === 'process_exit')).toEqual([]);
    } finally {
      await agent.shutdown();
    }
  });

  it('permission requests are denied by default and allowed by the recipe rule', async () => {
    const denied = await turn('permission edit');
    expect(textsOf(denied.seen)).toEqual(['permission answer: no']);
    const allowed = await turn('permission edit', 'scripted', { permission: { allow: ['edit'] } });
    expect(textsOf(allowed.seen)).toEqual(['permission answer: yes']);
    const other = await turn('permission delete', 'scripted', { permission: { allow: ['edit'] } });
    expect(textsOf(other.seen)).toEqual(['permission answer: no']);
  });

  it('[CUR-34] a permission asked after session/cancel is answered cancelled, even for an allowed tool kind', async () => {
    const seen: Seen[] = [];
    let working: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (working = resolve));
    const recipe = scriptedRecipe('permission_after_cancel', { permission: { allow: ['edit'] } });
    const agent = AcpAgent.launch(recipe, {
      invocationId: 'inv-pc',
      onUpdate: (update, info) => {
        seen.push({ update, info });
        working();
      },
    });
    try {
      expect((await agent.open()).ok).toBe(true);
      const pending = agent.prompt('x');
      await started;
      await agent.cancel();
      expect(await pending).toEqual({ outcome: 'cancelled', generation: 1 });
      // The agent was told not to act: the cancelled prompt runs no tool.
      expect(textsOf(seen)).toEqual(['working on it', 'permission answer: cancelled']);
      expect(agent.permissions).toEqual([{ toolKind: 'edit', allowed: false }]);
    } finally {
      await agent.shutdown();
    }
  });

  it('a permission asked for a session this client did not open is answered cancelled', async () => {
    const { seen } = await turn('permission_foreign', 'scripted', { permission: { allow: ['edit'] } });
    expect(textsOf(seen)).toEqual(['permission answer: cancelled']);
  });

  it('[SAF-10] a second prompt while one is open is refused: it cannot take over the open generation', async () => {
    const agent = AcpAgent.launch(scriptedRecipe('hang'), { invocationId: 'inv-2p', onUpdate: () => seen() });
    let seen: () => void = () => undefined;
    const working = new Promise<void>((resolve) => (seen = resolve));
    try {
      expect((await agent.open()).ok).toBe(true);
      const first = agent.prompt('one');
      await working;
      await expect(agent.prompt('two')).rejects.toMatchObject({ code: 'invalid_input' });
      await agent.cancel();
      expect(await first).toEqual({ outcome: 'cancelled', generation: 1 });
    } finally {
      await agent.shutdown();
    }
  });

  it('[CUR-32] session/load resumes the provider-native session; its replayed history is not evidence of the new prompt', async () => {
    const seen: Seen[] = [];
    const result = await runAcpTurn(scriptedRecipe('load'), {
      prompt: 'again',
      invocationId: 'inv-l',
      resumeSessionId: 'scripted-41',
      onUpdate: (update, info) => seen.push({ update, info }),
    });
    expect(result).toMatchObject({ outcome: 'success', sessionId: 'scripted-41', resumed: true });
    expect(seen.filter((s) => s.info.generation === 0)).toHaveLength(3);
    expect(textsOf(seen.filter((s) => s.info.generation === 1))).toEqual([
      'answer after load',
      'session scripted-41',
    ]);
    // An agent without loadSession opens a new session instead.
    const fresh = await runAcpTurn(scriptedRecipe('success'), {
      prompt: 'again',
      invocationId: 'inv-f',
      resumeSessionId: 'scripted-41',
    });
    expect(fresh).toMatchObject({ outcome: 'success', sessionId: 'scripted-1', resumed: false });
  });

  it('[DAT-13] authenticate with a key resolved from the environment at launch; the key never reaches evidence', async () => {
    const fields = {
      auth_method: 'scripted-key',
      env: { SCRIPTED_AGENT_KEY: { from_env: 'TEST_AGENT_KEY' } },
      inherit_env: ['PATH'],
    };
    const ok = await runAcpTurn(scriptedRecipe('success', fields), {
      prompt: 'x',
      invocationId: 'inv-a',
      environment: { TEST_AGENT_KEY: 'expected-secret', PATH: process.env.PATH },
    });
    expect(ok.outcome).toBe('success');
    const wrong = failed(
      await runAcpTurn(scriptedRecipe('success', fields), {
        prompt: 'x',
        invocationId: 'inv-b',
        environment: { TEST_AGENT_KEY: 'wrong-secret-value' },
      }),
    );
    expect(wrong.evidence).toMatchObject({
      kind: 'acp_error',
      phase: 'authenticate',
      error: { code: -32000 },
    });
    expect(wrong.classification).toMatchObject({ code: 'auth_required', class: 'hard' });
    expect(JSON.stringify(wrong)).not.toContain('wrong-secret-value');
    await expect(
      runAcpTurn(scriptedRecipe('success', fields), { prompt: 'x', invocationId: 'inv-c', environment: {} }),
    ).rejects.toThrow(AcpLaunchError);
  });

  it('a command that cannot start fails its launch phase', async () => {
    const f = failed(
      await runAcpTurn(scriptedRecipe('success', { command: `${repoRoot}/no-such-agent-cli` }), {
        prompt: 'x',
        invocationId: 'inv-x',
      }),
    );
    expect(f.evidence).toMatchObject({ kind: 'process_exit', phase: 'launch', exit_code: null });
    expect((f.evidence as EvidenceEnvelope & { stderr_tail: string }).stderr_tail).toContain('ENOENT');
  });

  it("shutdown ends the agent's whole process group by id", async () => {
    const agent = AcpAgent.launch(scriptedRecipe('success'), { invocationId: 'inv-s' });
    expect((await agent.open()).ok).toBe(true);
    const pid = agent.process.pid;
    if (pid === undefined) throw new Error('no pid');
    // The agent leads its own group: the group id is its pid.
    expect(() => process.kill(-pid, 0)).not.toThrow();
    await agent.shutdown();
    expect(agent.process.exit).not.toBeNull();
    expect(() => process.kill(-pid, 0)).toThrow(/ESRCH/);
  });
});
