/**
 * A toy orchestrator that embeds Recourse: it runs one agent task ("fix the build") against a model provider that
 * fails 529, 529, then 429 with `Retry-After: 5`, then succeeds. Recourse decides what happens after each failure
 * (retry with backoff, wait for the provider's reset, move to the fallback candidate, stop for a person) and keeps
 * every wait in an SQLite file, so a kill at any point loses nothing and repeats nothing.
 *
 *   npm start                 run it (about 12 seconds of real waiting)
 *   node dist/orchestrator.js [DATA_DIR]
 *
 * Kill it (Ctrl-C, or kill -9) while it waits and start it again: the pending retry fires once, at its time.
 * Delete the data folder (`.data` by default) to run the demo from the start. To kill it while an attempt runs
 * instead, slow the provider down: `EMBED_PROVIDER_DELAY_MS=5000 npm start`.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  evidenceOfResponse,
  openRecourse,
  RecourseError,
  type DynamicProfileInput,
  type EngineEvent,
  type Recourse,
  type RouteSnapshot,
  type RunAttempt,
  type RunResult,
} from 'recourse';
import { fallbackModel, primaryModel, readCalls, startFakeProvider } from './fake-provider.js';

const dataDir = resolve(process.argv[2] ?? '.data');
mkdirSync(dataDir, { recursive: true });
const providerLog = join(dataDir, 'provider-calls.jsonl');

/** The one task this orchestrator runs. The route id is ours: it is how we find the task again after a restart. */
const taskId = 'fix-the-build';

/**
 * The dynamic profile: the candidates in order, each with its policy per failure class (docs/policy.md).
 * `transient` covers overloads, rate limits and network failures; `hard` covers quota, billing and auth.
 */
const profile: DynamicProfileInput = {
  id: 'coding',
  name: 'Coding agent',
  candidates: [
    {
      profile_id: 'primary',
      provider: 'anthropic', // keys the shared circuit: every route on this provider sees an outage together
      model: primaryModel,
      policy: {
        version: 1,
        transient: {
          // Retries at 2 s, 4 s, 8 s after a transient failure...
          retry: { enabled: true, max_retries: 3, initial_interval_seconds: 2 },
          // ...but a failure that says when it resets (Retry-After, "resets at 3pm") is waited out instead, once
          // per cycle, when the reset is at most a minute away. Without this the retry schedule is exact and a
          // provider's Retry-After would not delay a retry (`recourse policy validate` warns about that).
          wait_for_reset: { enabled: true, max_wait_seconds: 60 },
          on_exhausted: 'skip', // then the next candidate
        },
        hard: {
          retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
          wait_for_reset: { enabled: true, max_wait_seconds: 3600 },
          on_exhausted: 'skip',
        },
      },
    },
    // No policy: any failure skips at once; with no candidate left, the route stops for a person.
    { profile_id: 'fallback', provider: 'anthropic', model: fallbackModel },
  ],
};

/** Which model each candidate runs: candidates are Recourse's names, models are the provider's. */
const modelOf: Record<string, string> = { primary: primaryModel, fallback: fallbackModel };

/** What we store with the route: Recourse keeps it and hands it back with every attempt, also after a restart. */
interface TaskPayload {
  readonly prompt: string;
}

const provider = await startFakeProvider({
  logFile: providerLog,
  retryAfterSeconds: 5,
  delayMs: Number(process.env.EMBED_PROVIDER_DELAY_MS ?? 0) || 0,
});

/**
 * Runs one attempt to its end. Recourse calls it for the first attempt and for every retry, reset retry and
 * switch it decides on; the attempt counts as accepted as soon as this is called. Return a failure (or throw)
 * and Recourse decides what comes next; never retry in here.
 */
async function runAttempt(attempt: RunAttempt): Promise<RunResult> {
  const { intent } = attempt;
  const { prompt } = attempt.payload as unknown as TaskPayload;
  const model = modelOf[intent.candidate] ?? primaryModel;
  // A fetch that throws (connection refused, DNS, a reset stream) fails the attempt with the error as evidence.
  const response = await fetch(`${provider.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      // One attempt, one key: a provider that dedupes on it never runs the same attempt twice.
      'idempotency-key': intent.id,
    },
    body: JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: prompt }] }),
  });
  if (!response.ok) {
    // Status, headers (Retry-After included) and body become the evidence the classifier reads.
    return {
      status: 'failure',
      evidence: await evidenceOfResponse(response, { provider: 'anthropic', model }),
    };
  }
  const message = (await response.json()) as { content: Array<{ type: string; text?: string }> };
  for (const block of message.content) {
    // Tell Recourse what the agent produced: an attempt with output is never replayed automatically.
    if (block.type === 'text' && block.text !== undefined) {
      attempt.record({ kind: 'assistant_output', text: block.text });
      say(`${intent.candidate} answered: ${block.text}`);
    }
  }
  return { status: 'success' };
}

const recourse: Recourse = await openRecourse({
  database: join(dataDir, 'recourse.db'),
  run: runAttempt,
  // Subscribed before restart reconciliation runs: its report is the first event after a restart.
  onEvent: describe,
  // A report that could not be recorded after an attempt ended (Recourse was closing, say).
  onError: (error) => say(`could not record an attempt's outcome: ${String(error)}`),
});
say(`opened ${join(dataDir, 'recourse.db')}`);

// Graceful shutdown: waits already stored stay stored; the next start arms them again.
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    say(`${signal}: closing; pending waits are stored and resume on the next start`);
    void recourse.close().then(() => {
      void provider.close();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  });
}

try {
  const stored = await recourse.engine.saveProfile(profile); // unchanged on a restart: same version
  say(`profile ${stored.id} version ${stored.version}`);
  await resumeAfterCrash(recourse);
  await startOnce(recourse);
  const done = await recourse.engine.waitFor(
    taskId,
    (route) => route.outcome === 'succeeded' || route.outcome === 'needs_action',
  );
  summarize(done);
  process.exitCode = done.outcome === 'succeeded' ? 0 : 1;
} catch (error) {
  say(error instanceof RecourseError ? `recourse: ${error.code}: ${error.message}` : String(error));
  process.exitCode = 1;
} finally {
  if (!closing) {
    closing = true;
    await recourse.close();
    await provider.close();
  }
}

/**
 * After a crash, reconciliation has already re-armed every stored wait (they fire at their times, once). What
 * it cannot decide is an attempt that was running when the process died: it may or may not have reached the
 * provider or run tools. Recourse never guesses (it reports the attempt orphaned, or stops a dispatch whose
 * acceptance was not recorded); the orchestrator decides. This toy agent has no side effects, so it retries;
 * a real one would look at what the agent did (its transcript, the working tree) and otherwise `stop`.
 */
async function resumeAfterCrash(open: Recourse): Promise<void> {
  for (const attempt of [...open.report.orphaned, ...open.report.stopped]) {
    if (attempt.routeId !== taskId) continue;
    const outcome = await open.engine.act({
      routeId: attempt.routeId,
      action: 'retry_now',
      // Fenced: refused if the route moved on since the report (a late answer of the old attempt, say).
      expectedGeneration: attempt.generation,
    });
    say(
      outcome.outcome === 'changed'
        ? `the ${attempt.kind} attempt on ${attempt.candidate} was cut off by the crash: sent again`
        : `left the ${attempt.kind} attempt on ${attempt.candidate} alone: ${outcome.outcome}`,
    );
  }
}

/** Starts the task unless it exists: after a restart, Recourse already holds it, its payload and its waits. */
async function startOnce(open: Recourse): Promise<void> {
  const existing = await open.engine.route(taskId);
  if (existing !== null) {
    say(`task ${taskId} found: ${existing.state} on ${existing.candidate} (${existing.outcome})`);
    return;
  }
  const payload: TaskPayload = { prompt: 'The build fails on main. Find out why and fix it.' };
  await open.engine.startRoute({ routeId: taskId, profileId: profile.id, payload: { ...payload } });
}

function summarize(route: RouteSnapshot): void {
  const calls = readCalls(providerLog);
  say(`provider calls: ${calls.map((c) => `${c.model}#${c.call}=${c.status}`).join(', ')}`);
  if (route.state === 'action_required') {
    say(
      `task ${route.id} needs a person: ${route.reason}${route.detail === null ? '' : ` (${route.detail})`}`,
    );
  } else {
    say(`task ${route.id} ${route.outcome} on ${route.candidate} (generation ${route.generation})`);
  }
  say(`delete ${dataDir} to run the demo again`);
}

/** One line per engine event: what a person watching the orchestrator wants to know. */
function describe(event: EngineEvent): void {
  switch (event.type) {
    case 'transition': {
      const { route, from, decision, classification } = event;
      const why = classification === null ? '' : `; ${classification.code} (${classification.class})`;
      const next =
        route.state === 'retry_wait'
          ? `; retry ${route.retryOrdinal} of ${route.maxRetries} at ${clock(route.deadlineMs)}`
          : route.state === 'waiting_for_reset'
            ? `; waiting for the provider's reset until ${clock(route.deadlineMs)}`
            : route.state === 'action_required'
              ? `; needs a person: ${route.reason}`
              : '';
      say(`${route.id}: ${from ?? 'new'} -> ${route.state} (${decision}) on ${route.candidate}${why}${next}`);
      return;
    }
    case 'dispatch':
      say(`${event.intent.routeId}: ${event.intent.kind} attempt on ${event.intent.candidate}`);
      return;
    case 'purged':
      say(`purged ${event.routeIds.length} finished route(s): ${event.routeIds.join(', ')}`);
      return;
    case 'reconciled': {
      const r = event.report;
      say(
        `restart reconciliation: ${r.rearmed.length} wait(s) armed again, ${r.stopped.length} uncertain dispatch(es) stopped, ${r.orphaned.length} attempt(s) orphaned`,
      );
      return;
    }
    case 'circuit':
      say(`circuit ${event.circuit.key}: ${event.circuit.state}`);
      return;
    case 'refused':
      say(`${event.routeId}: ${event.trigger} refused (${event.reason}): ${event.detail}`);
      return;
    case 'error':
      say(`engine error: ${event.message}`);
      return;
    case 'dispatch_acknowledged':
    case 'prompt':
    case 'notice':
      return;
  }
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

function say(line: string): void {
  process.stdout.write(`${clock(Date.now())} ${line}\n`);
}
