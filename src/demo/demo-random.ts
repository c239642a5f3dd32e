/**
 * A small seeded generator (mulberry32): the same seed gives the same fleet, so a test can name what it expects.
 * Not for anything secret.
 */
export interface DemoRandom {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  between(min: number, max: number): number;
  /** One of `items` (not empty). */
  pick<T>(items: readonly T[]): T;
}

export function demoRandom(seed: number): DemoRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}
