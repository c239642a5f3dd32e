import { describeValue, isPlainObjectValue, jsonPointer, type FieldIssue } from '../core/index.js';

/** ACP tool kinds a permission rule may allow (the protocol's `ToolKind`). */
export const toolKinds = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
] as const;
export type ToolKind = (typeof toolKinds)[number];

/** An env value: a plain, non-secret string, or the name of a variable of the launching process read at launch. */
export type EnvValue = string | { readonly from_env: string };

/**
 * How to start one agent CLI over ACP, validated and frozen (`parseLaunchRecipe`). Times in ms, sizes in bytes.
 * No credential is stored here: a secret comes in through `{"from_env": NAME}` or `inherit_env` at launch.
 */
export interface LaunchRecipe {
  /** The agent's label (`claude`, `gemini`, `codex-acp`, `cursor-acp`, ...): evidence names it; `cursor-acp` and
   * `codex-acp` switch on their normal-completion failure projections. */
  readonly agent: string;
  /** The API provider behind the agent, when known (`anthropic`, ...): evidence names it for the classifier. */
  readonly provider: string | null;
  readonly command: string;
  readonly args: readonly string[];
  /** The child's working directory, and the `cwd` of its ACP sessions (absolute). */
  readonly cwd: string;
  readonly env: Readonly<Record<string, EnvValue>>;
  /** Variables of the launching process passed through unchanged (PATH, HOME, ...); nothing else is inherited. */
  readonly inheritEnv: readonly string[];
  /** The `authenticate` method to call when the agent offers it; null: never authenticate. */
  readonly authMethod: string | null;
  /** Tool kinds whose permission requests are allowed; every other request is denied (deny by default). */
  readonly allowToolKinds: readonly ToolKind[];
  /** Time between SIGTERM and SIGKILL of the agent's process group on shutdown. Default 2,000. */
  readonly shutdownGraceMs: number;
  /** Size of the managed stderr tail kept as evidence. Default 8,192. */
  readonly stderrTailBytes: number;
}

const defaults = { shutdownGraceMs: 2_000, stderrTailBytes: 8_192 } as const;
/** The largest stderr tail a recipe may ask for: 1 MiB. */
const stderrTailMaxBytes = 1_048_576;
const knownKeys = new Set([
  'agent',
  'provider',
  'command',
  'args',
  'cwd',
  'env',
  'inherit_env',
  'auth_method',
  'permission',
  'shutdown_grace_ms',
  'stderr_tail_bytes',
]);
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type ParseRecipeResult =
  | { readonly ok: true; readonly recipe: LaunchRecipe }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/**
 * Validates a launch recipe (snake_case JSON, as a profile names it). Every problem is reported with its JSON
 * pointer; nothing is launched or resolved here (a `from_env` variable is read only at launch).
 */
export function parseLaunchRecipe(input: unknown, base = ''): ParseRecipeResult {
  const issues: FieldIssue[] = [];
  const issue = (path: string, message: string) => void issues.push({ path, message });
  if (!isPlainObjectValue(input)) {
    return {
      ok: false,
      issues: [{ path: base || '/', message: `must be an object, got ${describeValue(input)}` }],
    };
  }
  for (const key of Object.keys(input)) {
    if (!knownKeys.has(key)) issue(jsonPointer(base, key), 'is not a launch recipe field');
  }
  const text = (key: string, required: boolean): string | null => {
    const value = input[key];
    if (value === undefined && !required) return null;
    if (typeof value !== 'string' || value.trim() === '') {
      issue(jsonPointer(base, key), `must be a non-empty string, got ${describeValue(value)}`);
      return null;
    }
    return value;
  };
  const agent = text('agent', true);
  const provider = text('provider', false);
  const command = text('command', true);
  const cwd = text('cwd', true);
  if (cwd !== null && !cwd.startsWith('/')) issue(jsonPointer(base, 'cwd'), 'must be an absolute path');
  const authMethod = text('auth_method', false);
  const args = stringList(input.args, jsonPointer(base, 'args'), issue, () => true, 'a string');
  const inheritEnv = stringList(
    input.inherit_env,
    jsonPointer(base, 'inherit_env'),
    issue,
    (s) => envName.test(s),
    'a variable name',
  );
  const env = envMap(input.env, jsonPointer(base, 'env'), issue);
  const allowToolKinds = permissionRule(input.permission, jsonPointer(base, 'permission'), issue);
  const shutdownGraceMs = count(
    input.shutdown_grace_ms,
    jsonPointer(base, 'shutdown_grace_ms'),
    issue,
    0,
    60_000,
  );
  const stderrTailBytes = count(
    input.stderr_tail_bytes,
    jsonPointer(base, 'stderr_tail_bytes'),
    issue,
    256,
    stderrTailMaxBytes,
  );
  if (issues.length > 0 || agent === null || command === null || cwd === null) return { ok: false, issues };
  return {
    ok: true,
    recipe: Object.freeze({
      agent,
      provider,
      command,
      args: Object.freeze(args),
      cwd,
      env: Object.freeze(env),
      inheritEnv: Object.freeze(inheritEnv),
      authMethod,
      allowToolKinds: Object.freeze(allowToolKinds),
      shutdownGraceMs: shutdownGraceMs ?? defaults.shutdownGraceMs,
      stderrTailBytes: stderrTailBytes ?? defaults.stderrTailBytes,
    }),
  };
}

type Report = (path: string, message: string) => void;

function stringList(
  value: unknown,
  path: string,
  issue: Report,
  valid: (s: string) => boolean,
  what: string,
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issue(path, `must be an array, got ${describeValue(value)}`);
    return [];
  }
  const out: string[] = [];
  value.forEach((item: unknown, i) => {
    if (typeof item === 'string' && valid(item)) out.push(item);
    else issue(jsonPointer(path, i), `must be ${what}, got ${describeValue(item)}`);
  });
  return out;
}

function envMap(value: unknown, path: string, issue: Report): Record<string, EnvValue> {
  if (value === undefined) return {};
  if (!isPlainObjectValue(value)) {
    issue(path, `must be an object, got ${describeValue(value)}`);
    return {};
  }
  const out: Record<string, EnvValue> = {};
  for (const [key, entry] of Object.entries(value)) {
    const at = jsonPointer(path, key);
    if (!envName.test(key)) issue(at, 'is not a variable name');
    else if (typeof entry === 'string') out[key] = entry;
    else if (
      isPlainObjectValue(entry) &&
      Object.keys(entry).length === 1 &&
      typeof entry.from_env === 'string'
    ) {
      if (envName.test(entry.from_env)) out[key] = Object.freeze({ from_env: entry.from_env });
      else
        issue(jsonPointer(at, 'from_env'), `must be a variable name, got ${describeValue(entry.from_env)}`);
    } else {
      // The value is not echoed: a misplaced credential must not reach an error message.
      issue(at, 'must be a string or {"from_env": "NAME"}');
    }
  }
  return out;
}

function permissionRule(value: unknown, path: string, issue: Report): ToolKind[] {
  if (value === undefined) return [];
  if (!isPlainObjectValue(value)) {
    issue(path, `must be an object like {"allow": ["read"]}, got ${describeValue(value)}`);
    return [];
  }
  for (const key of Object.keys(value)) {
    if (key !== 'allow') issue(jsonPointer(path, key), 'is not a permission rule field (only "allow")');
  }
  const kinds = stringList(
    value.allow,
    jsonPointer(path, 'allow'),
    issue,
    (s) => (toolKinds as readonly string[]).includes(s),
    `one of ${toolKinds.join(', ')}`,
  );
  return kinds as ToolKind[];
}

function count(value: unknown, path: string, issue: Report, min: number, max: number): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    issue(path, `must be an integer from ${min} to ${max}, got ${describeValue(value)}`);
    return null;
  }
  return value;
}

export type ResolveEnvResult =
  | { readonly ok: true; readonly env: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/**
 * The child's whole environment: the inherited names that are set, then the recipe's values with each `from_env`
 * read from `source`. A missing variable is an error naming the key (never its value); resolved values live only
 * in the returned object, which goes to `spawn` and nowhere else (DAT-13).
 */
export function resolveLaunchEnv(
  recipe: LaunchRecipe,
  source: Readonly<Record<string, string | undefined>>,
): ResolveEnvResult {
  const env: Record<string, string> = {};
  const issues: FieldIssue[] = [];
  for (const name of recipe.inheritEnv) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [key, value] of Object.entries(recipe.env)) {
    if (typeof value === 'string') {
      env[key] = value;
      continue;
    }
    const resolved = source[value.from_env];
    if (resolved === undefined || resolved === '') {
      issues.push({
        path: `/env/${key}/from_env`,
        message: `the variable ${value.from_env} is not set in the environment that launches the agent`,
      });
    } else env[key] = resolved;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, env: Object.freeze(env) };
}
