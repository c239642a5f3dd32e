import type { JsonValue } from '../core/index.js';
import { demoProfiles } from './demo-profiles.js';
import { demoRandom, type DemoRandom } from './demo-random.js';
import { DemoScript } from './demo-script.js';

/** One simulated agent session: it works through tasks on one dynamic profile, a route per task. */
export interface DemoSession {
  /** 0-based. */
  readonly index: number;
  readonly profileId: string;
  /** What its provider does, attempt after attempt. */
  readonly script: DemoScript;
  /** Its own generator: one session's timing never shifts another's story. */
  readonly random: DemoRandom;
  /** How long it "reads" a finished turn before the next prompt, in ms. */
  readonly thinkMs: number;
}

/** The sessions, spread over the profiles in turn; the same seed gives the same sessions. */
export function demoSessions(count: number, seed: number): DemoSession[] {
  return Array.from({ length: count }, (_, index) => {
    const random = demoRandom(seed + index * 7919);
    return {
      index,
      profileId: demoProfiles[index % demoProfiles.length]!.id,
      script: new DemoScript(index, random),
      random,
      thinkMs: random.between(1500, 4000),
    };
  });
}

/** Which session and task a route belongs to: the demo's own payload, read back from the route. */
export interface DemoTask {
  readonly session: number;
  readonly task: number;
}

const prompts = [
  'Fix the flaky checkout test',
  'Review the retry budget change',
  'Update the install guide',
  'Bump the SQLite driver and rebuild',
  'Explain the failing migration',
  'Tidy the release notes',
];

/** Route ids sort by session, then task (`demo-s03-t0012`). */
export function taskRouteId(task: DemoTask): string {
  return `demo-s${String(task.session + 1).padStart(2, '0')}-t${String(task.task).padStart(4, '0')}`;
}

export function taskPayload(task: DemoTask, turn: number): JsonValue {
  return {
    demo: { session: task.session, task: task.task },
    prompt: prompts[(task.session + task.task + turn) % prompts.length]!,
  };
}

/** The task a route's payload names, or null for a route that is not the demo's. */
export function taskOf(payload: JsonValue | null): DemoTask | null {
  const demo = objectOf(objectOf(payload)?.['demo']);
  const session = demo?.['session'];
  const task = demo?.['task'];
  return Number.isSafeInteger(session) && Number.isSafeInteger(task)
    ? { session: session as number, task: task as number }
    : null;
}

function objectOf(value: JsonValue | null | undefined): Readonly<Record<string, JsonValue>> | null {
  // Array.isArray does not narrow a readonly array out of the union: the cast states what the check proved.
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Readonly<Record<string, JsonValue>>)
    : null;
}
