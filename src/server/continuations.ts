import type { DispatchIntent } from '../core/index.js';

/** How a manual recovery continues a task session: the same provider session, or a new one. */
export type Continuation = 'resume' | 'start_fresh';

const kept = 10_000;

/**
 * The person's Resume / Start fresh choice, carried to the dispatch that carries it out, so the orchestrator knows
 * which one (`session/load` plus the cached prompt, or `session/new`; the ACP adapter maps them). A choice is
 * armed for its route before the action and claimed by the route's next manual dispatch; from then on it belongs
 * to that intent. Bounded: the oldest entries fall out first.
 */
export class Continuations {
  private readonly armed = new Map<string, Continuation>();
  private readonly byIntent = new Map<string, Continuation>();

  arm(routeId: string, choice: Continuation): void {
    this.armed.set(routeId, choice);
    bound(this.armed);
  }

  disarm(routeId: string): void {
    this.armed.delete(routeId);
  }

  /** The continuation an intent carries (null for every dispatch that is not a person's recovery choice). */
  of(intent: DispatchIntent): Continuation | null {
    const known = this.byIntent.get(intent.id);
    if (known !== undefined) return known;
    const choice = intent.kind === 'manual' ? this.armed.get(intent.routeId) : undefined;
    if (choice === undefined) return null;
    this.armed.delete(intent.routeId);
    this.byIntent.set(intent.id, choice);
    bound(this.byIntent);
    return choice;
  }
}

function bound(map: Map<string, Continuation>): void {
  if (map.size > kept) map.delete(map.keys().next().value!);
}
