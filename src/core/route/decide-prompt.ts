import { changed, refused, type Decision, type RouteWorld } from './decision.js';
import { freshUsage, type Route } from './route.js';
import type { RouteEffect } from './route-effect.js';
import { base, newIntent, pendingOf, touched } from './route-moves.js';

/**
 * A new user prompt begins on the route: the caller sent it and announces it, so that its failure or success
 * can be told from late reports of the attempt before (which are stale from now on). It becomes the route's
 * attempt (kind `prompt`, delivered). On an `active` route the generation stays; on a route that needed action
 * the person moved on: a new cycle and a new generation begin. Refused while Recourse owns the session
 * (a wait, a retry or a switch in flight), and for a stale `expectedGeneration`.
 */
export function decidePrompt(
  route: Route,
  event: { readonly expectedGeneration?: number },
  world: RouteWorld,
): Decision {
  if (event.expectedGeneration !== undefined && event.expectedGeneration !== route.generation) {
    return refused(
      route,
      'stale_generation',
      `expected generation ${event.expectedGeneration}, the route is at ${route.generation}`,
    );
  }
  if (route.state !== 'active' && route.state !== 'action_required') {
    return refused(route, 'not_allowed', `Recourse owns the session while it is ${route.state}`);
  }
  const restart = route.state === 'action_required';
  const next = restart
    ? {
        ...base(route),
        generation: route.generation + 1,
        cycle: route.cycle + 1,
        excluded: [],
        usage: freshUsage,
      }
    : base(route);
  const intent = newIntent(next, world, 'prompt', next.candidate, next.generation);
  const previous = route.dispatch;
  const effects: RouteEffect[] = [{ kind: 'record_prompt', intent }];
  if (previous !== null && !previous.acknowledged && !previous.finished) {
    effects.unshift({ kind: 'resolve_intent', intentId: previous.intentId, outcome: 'superseded' });
  }
  const route2: Route = touched(
    {
      ...next,
      state: 'active',
      lastFailure: restart ? null : route.lastFailure,
      dispatch: pendingOf(intent, true),
    },
    route,
    world.nowMs,
  );
  return changed(route2, 'prompt', effects);
}
