import { isAbsolute, resolve } from 'node:path';
import { parseLaunchRecipe, type LaunchRecipe } from '../acp/index.js';
import {
  isPlainObjectValue,
  jsonPointer,
  validateDynamicProfile,
  type DynamicProfile,
  type FieldIssue,
} from '../core/index.js';

/** A `recourse run` profile: the dynamic profile the engine stores, and each candidate's launch recipe. */
export interface RunProfile {
  /** What the store keeps: no launch recipe, so no env value ever reaches the database (DAT-13). */
  readonly profile: DynamicProfile;
  readonly recipes: Readonly<Record<string, LaunchRecipe>>;
}

export type RunProfileResult =
  | { readonly ok: true; readonly value: RunProfile }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/**
 * Validates a run profile: a dynamic profile (`validateDynamicProfile`) whose every candidate also carries a
 * `launch` recipe (`parseLaunchRecipe`). In a recipe, `agent` defaults to the candidate's `profile_id`, `provider` to
 * the candidate's `provider`, and `cwd` to `runCwd`; a relative `cwd` is taken from `runCwd`. Every problem of both
 * parts is reported at once, each by its JSON pointer in the file.
 */
export function parseRunProfile(input: unknown, runCwd: string): RunProfileResult {
  if (!isPlainObjectValue(input) || !Array.isArray(input.candidates)) {
    // The profile validator names every missing or wrong field of the outer document.
    const checked = validateDynamicProfile(input);
    return { ok: false, issues: checked.ok ? [] : checked.issues };
  }
  const issues: FieldIssue[] = [];
  const launches: unknown[] = [];
  const candidates = input.candidates.map((candidate: unknown, index) => {
    if (!isPlainObjectValue(candidate)) return candidate;
    const { launch, ...rest } = candidate;
    if (launch === undefined) {
      issues.push({
        path: jsonPointer(jsonPointer('/candidates', index), 'launch'),
        message: 'each candidate needs a launch recipe {command, args, cwd, env} (docs/cli.md)',
      });
    }
    launches[index] = launch;
    return rest;
  });
  const checked = validateDynamicProfile({ ...input, candidates });
  if (!checked.ok) issues.push(...checked.issues);
  const recipes: Record<string, LaunchRecipe> = {};
  candidates.forEach((candidate: unknown, index) => {
    const launch = launches[index];
    if (!isPlainObjectValue(candidate) || !isPlainObjectValue(launch)) {
      const refused = launch === undefined ? null : parseLaunchRecipe(launch, launchPath(index));
      if (refused !== null && !refused.ok) issues.push(...refused.issues);
      return;
    }
    const parsed = parseLaunchRecipe(withDefaults(launch, candidate, runCwd), launchPath(index));
    if (!parsed.ok) issues.push(...parsed.issues);
    else if (typeof candidate.profile_id === 'string') recipes[candidate.profile_id] = parsed.recipe;
  });
  if (!checked.ok || issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { profile: checked.value, recipes: Object.freeze(recipes) } };
}

function launchPath(index: number): string {
  return jsonPointer(jsonPointer('/candidates', index), 'launch');
}

function withDefaults(
  launch: Readonly<Record<string, unknown>>,
  candidate: Readonly<Record<string, unknown>>,
  runCwd: string,
): Record<string, unknown> {
  const cwd = launch.cwd;
  return {
    ...(typeof candidate.profile_id === 'string' ? { agent: candidate.profile_id } : {}),
    ...(typeof candidate.provider === 'string' ? { provider: candidate.provider } : {}),
    ...launch,
    cwd:
      cwd === undefined
        ? runCwd
        : typeof cwd === 'string' && cwd.trim() !== '' && !isAbsolute(cwd)
          ? resolve(runCwd, cwd)
          : cwd,
  };
}
