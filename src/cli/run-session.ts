import { existsSync } from 'node:fs';
import { AcpDispatcher, killAgentGroups } from '../acp/index.js';
import { openRecourse, type Recourse } from '../app/index.js';
import { systemClock, type Clock } from '../engine/index.js';
import type { Route } from '../core/index.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { openSqliteDatabase } from '../store/sqlite/sqlite-store.js';
import { exitCodeOf, finalStateWords, runExit } from './run-exit.js';
import type { RunProfile } from './run-profile.js';
import { countdownLine, progressPrefix, RunProgress, stopReasonLine } from './run-progress.js';

export interface RunSessionInput {
  readonly run: RunProfile;
  readonly database: string;
  readonly sessionId: string;
  /** The prompt of a new session; null when only resuming. */
  readonly prompt: string | null;
  /** The exact command that resumes this session (printed when Ctrl-C leaves a wait). */
  readonly resumeCommand: string;
}

/** A usage problem found once the store is open (the session runs another profile, say): exit 2. */
export class RunUsageError extends Error {}

/**
 * Runs (or resumes) one session of `recourse run` to its final state on the SQLite store: the engine with the ACP
 * dispatcher, the agent's text on standard output, progress on standard error, Ctrl-C handled. Returns the exit
 * code.
 */
export async function runSession(input: RunSessionInput): Promise<number> {
  // A signal before Recourse is open (reading the route, migrations, the reconciliation that may send a retry at
  // once) is held and handled as soon as the run's handlers are in place: Node's default would end the process
  // with an agent it just launched still running in its own process group.
  const early = new EarlySignals();
  try {
    return await runOpened(input, early);
  } finally {
    early.release();
  }
}

async function runOpened(input: RunSessionInput, early: EarlySignals): Promise<number> {
  const { sessionId } = input;
  const progress = new RunProgress(sessionId);
  const output = new AgentOutput();
  const countdown = new Countdown();
  const say = (line: string) => {
    countdown.clear();
    output.endLine();
    process.stderr.write(`${line}\n`);
  };
  const peeked = await peekRoute(input.database, sessionId);
  if (peeked !== null) checkResumable(peeked, input);
  // A wait whose deadline passed meanwhile is sent again while Recourse opens (reconciliation): say so first.
  const announced = peeked !== null && isWaiting(peeked);
  if (announced) say(resumingLine(peeked));
  // eslint-disable-next-line prefer-const -- the dispatcher reports to the engine built with it
  let recourse: Recourse;
  const dispatcher = new AcpDispatcher({
    recipes: input.run.recipes,
    engine: () => recourse.engine,
    onUpdate: (update, { generation, suppressed }) => {
      // Generation 0 is the history a session/load replays: already shown in an earlier run.
      if (generation > 0 && !suppressed) output.write(update);
    },
    onTurn: (_intent, turn) => {
      output.endLine();
      const line = turn.outcome === 'success' ? stopReasonLine(turn.stopReason) : null;
      if (line !== null) say(line);
    },
    onError: (error) => say(`${progressPrefix}could not report an attempt: ${String(error)}`),
  });
  // Once interrupted, no deadline fires here: the interrupt keeps a wait stored for the resume, and a retry timer
  // that came due while it was still looking (a loaded machine, a cancel landing) must not send another prompt.
  const stopped = { signalled: false };
  const wall = systemClock();
  const clock: Clock = {
    now: () => wall.now(),
    schedule: (atMs, fire) =>
      wall.schedule(atMs, () => {
        if (!stopped.signalled) fire();
      }),
  };
  recourse = await openRecourse({
    database: input.database,
    clock,
    dispatcher,
    onEvent: (event) => {
      const line = progress.lineFor(event);
      if (line !== null) say(line);
      if (event.type === 'transition' && event.route.id === sessionId) countdown.follow(event.route);
    },
  });
  const { engine } = recourse;
  // Ctrl-C (SIGINT), SIGTERM (a supervisor, `timeout`, a closing CI job) and SIGHUP (the terminal closed) end the
  // run the same way; the exit code says which: 130, 143 or 129 (128 + the signal's number).
  let interrupted: number | null = null;
  let ended = false;
  /** Until the session's route is started or found: an interrupt then waits for it rather than reading its absence. */
  let starting = true;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted !== null) {
      // A second signal exits at once: the agents are detached process groups, so end them first.
      killAgentGroups();
      process.exit(interrupted);
    }
    interrupted = exitCodeForSignal(signal);
    stopped.signalled = true;
    if (signal === 'SIGHUP') ignoreWriteErrors();
    interrupt().catch((error: unknown) => {
      if (!ended) say(`${progressPrefix}could not interrupt cleanly: ${String(error)}`);
    });
  };
  const interrupt = async () => {
    let cancelling = false;
    let sent = false;
    for (;;) {
      // The run may have ended (and closed the engine) while this one slept.
      if (ended) return;
      const route = await engine.route(sessionId);
      // Finished meanwhile: the run ends on its own, with the interrupt's exit code.
      if (route !== null && (route.outcome === 'succeeded' || route.outcome === 'needs_action')) return;
      if (route === null && starting) {
        // A new session not started yet: starting it sees the interrupt and sends nothing, or the route appears
        // (started just before) and is cancelled as any other.
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (route === null || route.outcome === 'waiting') {
        // The wait stays stored: the next run with the same --session continues it with the time left. Also when
        // the turn failed just before the cancel landed and the route went into a wait meanwhile.
        say(`${progressPrefix}interrupted: the wait stays stored; resume it with:`);
        process.stderr.write(`  ${input.resumeCommand}\n`);
        countdown.stop();
        await recourse.close();
        process.exit(interrupted ?? runExit.interrupted);
      }
      if (!cancelling) say(`${progressPrefix}interrupted: cancelling the open prompt (session/cancel)`);
      // The attempt may not be dispatched yet (the engine is deciding), or its turn just ended: try until the cancel
      // is sent, and watch on until the route finishes or waits (a turn that failed before the cancel landed goes
      // into a wait, which is kept, not run). An agent still starting is ended rather than waited for.
      if (!sent) sent = await dispatcher.cancel(sessionId);
      cancelling = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  const held = early.release();
  if (held !== null) onSignal(held);
  try {
    const started = await startOrResume(recourse, input, say, announced, () => interrupted);
    starting = false;
    if (started !== null) return started;
    const current = await engine.route(sessionId);
    if (current !== null) countdown.follow(current);
    const final = await engine.waitFor(
      sessionId,
      (r) => r.outcome === 'succeeded' || r.outcome === 'needs_action',
    );
    countdown.stop();
    say(`${progressPrefix}session ${sessionId}: ${escapeControlCharacters(finalStateWords(final))}`);
    return interrupted ?? exitCodeOf(final) ?? runExit.actionRequired;
  } finally {
    ended = true;
    countdown.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    await recourse.close();
  }
}

/**
 * Starts a new route, or checks the stored one; returns an exit code when there is nothing left to run. `announced`:
 * the resume line was said before Recourse opened (a waiting route), so it is not said twice. `interrupted`: the exit
 * code of a signal already received, if any (a new session is then not started).
 */
async function startOrResume(
  recourse: Recourse,
  input: RunSessionInput,
  say: (line: string) => void,
  announced: boolean,
  interrupted: () => number | null,
): Promise<number | null> {
  const { engine } = recourse;
  const { profile } = input.run;
  const existing = await engine.route(input.sessionId);
  if (existing === null) {
    if (input.prompt === null)
      throw new RunUsageError(`no session ${input.sessionId}: give a PROMPT to start it`);
    await engine.saveProfile(profile);
    // Interrupted while the command started (a signal held until now, or one while the profile was saved): the
    // route is not started, so nothing is sent and there is nothing to resume. Two turns of the event loop first: a
    // signal that came while the database blocked this thread (another process's lock) is read in the next poll.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    const code = interrupted();
    if (code !== null) {
      say(`${progressPrefix}interrupted before session ${input.sessionId} started: nothing was sent`);
      return code;
    }
    say(`${progressPrefix}session ${input.sessionId}: profile ${profile.id}, ${candidateList(input.run)}`);
    await engine.startRoute({
      routeId: input.sessionId,
      profileId: profile.id,
      caller: 'task',
      payload: { prompt: input.prompt },
    });
    return null;
  }
  checkResumable(existing, input);
  const code = exitCodeOf(existing);
  if (code !== null) {
    say(`${progressPrefix}session ${input.sessionId} already finished: ${finalStateWords(existing)}`);
    return code;
  }
  if (existing.outcome === 'running' && existing.dispatch?.orphaned === true) {
    // Nothing is inferred from a lost process (OUT-01): a person decides whether the attempt ran.
    say(
      `${progressPrefix}session ${input.sessionId}: the attempt on ${existing.candidate} was running when the last run ended; ` +
        'its outcome is unknown and it is not sent again',
    );
    return runExit.actionRequired;
  }
  // Policy edits in the file apply from the next decision.
  await engine.saveProfile(profile);
  if (!announced) say(resumingLine(existing));
  return null;
}

function resumingLine(route: Route): string {
  return `${progressPrefix}resuming session ${route.id}: ${route.state} on ${route.candidate}`;
}

function isWaiting(route: Route): boolean {
  return route.state === 'retry_wait' || route.state === 'waiting_for_reset';
}

/** A stored session runs on with its own profile and prompt only; anything else is a usage error. */
function checkResumable(existing: Route, input: RunSessionInput): void {
  const { profile } = input.run;
  if (existing.profileId !== profile.id) {
    throw new RunUsageError(
      `session ${input.sessionId} runs profile ${existing.profileId}, not ${profile.id}: give its profile file`,
    );
  }
  const stored = storedPrompt(existing);
  if (input.prompt !== null && stored !== null && input.prompt !== stored) {
    throw new RunUsageError(
      `session ${input.sessionId} was started with another prompt: leave PROMPT out to resume it`,
    );
  }
}

/**
 * The session's stored route, read before the engine opens: reconciliation may send a re-armed wait at once, so a
 * session resumed with the wrong profile file is refused before anything could be sent with its recipes.
 */
async function peekRoute(file: string, routeId: string): Promise<Route | null> {
  if (!existsSync(file)) return null;
  let store: ReturnType<typeof openSqliteDatabase>['store'];
  try {
    store = openSqliteDatabase({ file }).store;
  } catch {
    // A folder, a file that is not a database, one in use: opening Recourse says what is wrong with it.
    return null;
  }
  try {
    return await store.readRoute(routeId);
  } catch {
    // Not a Recourse database yet (or an older one): opening Recourse says what is wrong with it.
    return null;
  } finally {
    await store.close();
  }
}

function storedPrompt(route: Route): string | null {
  const payload = route.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const prompt = (payload as { readonly prompt?: unknown }).prompt;
  return typeof prompt === 'string' ? prompt : null;
}

function candidateList(run: RunProfile): string {
  const ids = run.profile.candidates.filter((c) => c.enabled).map((c) => c.profile_id);
  return `candidate${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`;
}

/** The agent's streamed text (`agent_message_chunk`) on standard output, its control characters escaped. */
class AgentOutput {
  private midLine = false;

  write(update: Readonly<Record<string, unknown>>): void {
    if (update.sessionUpdate !== 'agent_message_chunk') return;
    const content = update.content as { readonly type?: unknown; readonly text?: unknown } | undefined;
    if (content?.type !== 'text' || typeof content.text !== 'string' || content.text === '') return;
    const text = content.text
      .split(/(\n|\t)/)
      .map((part) => (part === '\n' || part === '\t' ? part : escapeControlCharacters(part)))
      .join('');
    process.stdout.write(text);
    this.midLine = !text.endsWith('\n');
  }

  /** Ends a partial line, so progress and the next answer start on their own lines. */
  endLine(): void {
    if (!this.midLine) return;
    process.stdout.write('\n');
    this.midLine = false;
  }
}

/**
 * The countdown of a wait on standard error: rewritten in place every second on a terminal, otherwise one line at
 * once and then one every ten seconds. It follows the route: a waiting state starts it, any other stops it.
 */
class Countdown {
  private timer: NodeJS.Timeout | null = null;
  private shown = false;
  private readonly tty = process.stderr.isTTY;

  follow(route: Route): void {
    this.stop();
    if (route.state !== 'retry_wait' && route.state !== 'waiting_for_reset') return;
    const deadlineMs = route.deadlineMs;
    const tick = () => {
      const line = countdownLine(deadlineMs, Date.now());
      if (this.tty) {
        process.stderr.write(`\r\u001b[K${line}`);
        this.shown = true;
      } else process.stderr.write(`${line}\n`);
    };
    tick();
    this.timer = setInterval(tick, this.tty ? 1_000 : 10_000);
    this.timer.unref();
  }

  /** Removes the in-place line before another line is written. */
  clear(): void {
    if (!this.shown) return;
    process.stderr.write('\r\u001b[K');
    this.shown = false;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.clear();
  }
}

/** The signals `run` handles, held from its start until its own handlers are installed. */
class EarlySignals {
  private held: NodeJS.Signals | null = null;
  private listening = true;
  private readonly hold = (signal: NodeJS.Signals) => {
    if (this.held !== null) {
      // A second signal exits at once, as it does later: end the agents' process groups first.
      killAgentGroups();
      process.exit(exitCodeForSignal(this.held));
    }
    this.held = signal;
    if (signal === 'SIGHUP') ignoreWriteErrors();
  };

  constructor() {
    for (const signal of handledSignals) process.on(signal, this.hold);
  }

  /** Stops holding; returns the first signal held meanwhile, if any (once). */
  release(): NodeJS.Signals | null {
    if (this.listening) for (const signal of handledSignals) process.off(signal, this.hold);
    this.listening = false;
    const held = this.held;
    this.held = null;
    return held;
  }
}

/**
 * The terminal is gone (SIGHUP): what is said next may not be written (EIO), and must not end the run before the
 * route is left as it should be.
 */
function ignoreWriteErrors(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

const handledSignals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function exitCodeForSignal(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM'
    ? runExit.terminated
    : signal === 'SIGHUP'
      ? runExit.hungUp
      : runExit.interrupted;
}
