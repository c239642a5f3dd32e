import type { Command } from 'commander';
import { previewSchedule, type DynamicProfile } from '../core/index.js';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';
import { redactSecrets } from '../core/sanitize/redact-secrets.js';
import type { AnswerShape } from './answer-shape.js';
import { deleteJson, exitWithFailure, getJson, putJson } from './http-client.js';
import { readJsonFile } from './read-json-file.js';
import { renderSchedule } from './schedule-text.js';
import {
  checkedId,
  targetOf,
  usageError,
  wholeNumber,
  withServerFlags,
  type ServerFlags,
} from './server-flags.js';
import { renderTable } from './text-table.js';

const clean = escapeControlCharacters;

/** The fields of a stored profile document that `apply` and `get` read. */
const profileShape = {
  id: 'string',
  name: 'string',
  version: 'number',
  candidates: 'array',
} as const satisfies AnswerShape;

/** `recourse profiles apply|get|list|delete`: dynamic profiles on the server (API-01, API-02), over HTTP. */
export function registerProfilesCommand(program: Command): void {
  const profiles = program
    .command('profiles')
    .description('apply, read and delete dynamic profiles (over HTTP)');
  withServerFlags(
    profiles
      .command('apply')
      .description(
        'create or replace the dynamic profile in FILE (its id names it); prints the stored version',
      )
      .requiredOption('-f, --file <file>', 'the profile document (JSON), or - for standard input')
      .option('--if-version <n>', 'only if the latest stored version is N (0: only create)'),
  ).action((flags: ServerFlags & { readonly file: string; readonly ifVersion?: string }) => apply(flags));
  withServerFlags(
    profiles
      .command('get')
      .description('the latest version of a profile, each candidate with its schedule')
      .argument('<id>', 'profile id')
      .option('--json', 'the normalized document as JSON'),
  ).action((id: string, flags: ServerFlags & { readonly json?: boolean }) => get(id, flags));
  withServerFlags(
    profiles
      .command('list')
      .description('every dynamic profile: id, name, latest version')
      .option('--json', 'JSON'),
  ).action((flags: ServerFlags & { readonly json?: boolean }) => list(flags));
  withServerFlags(
    profiles
      .command('delete')
      .description('delete a profile with every version (refused while a route names it)')
      .argument('<id>', 'profile id')
      .option('--if-version <n>', 'only if the latest stored version is N (the one you read)'),
  ).action((id: string, flags: ServerFlags & { readonly ifVersion?: string }) => remove(id, flags));
}

async function apply(
  flags: ServerFlags & { readonly file: string; readonly ifVersion?: string },
): Promise<void> {
  const command = 'profiles apply';
  const target = targetOf(command, flags);
  const version =
    flags.ifVersion === undefined
      ? undefined
      : wholeNumber(command, '--if-version', flags.ifVersion, 0, Number.MAX_SAFE_INTEGER);
  const read = await readJsonFile(flags.file);
  if (!read.ok) usageError(command, read.message);
  const document = read.value;
  const id =
    typeof document === 'object' && document !== null && 'id' in document && typeof document.id === 'string'
      ? document.id
      : null;
  if (id === null || id === '') {
    // A document that was read and is invalid exits 1, as the server's own 422 does.
    process.stderr.write(
      `recourse ${command}: /id: the profile document needs a string id (it names the profile)\n`,
    );
    process.exit(1);
  }
  const reply = await putJson(
    target,
    `/v1/profiles/${encodeURIComponent(id)}`,
    document,
    profileShape,
    version === undefined ? {} : { 'if-match': `"${version}"` },
  );
  if (!reply.ok) {
    const errors = fieldErrorsOf(reply.failure.body);
    if (reply.failure.status !== 422 || errors.length === 0) exitWithFailure(command, reply.failure);
    process.stderr.write(
      `recourse ${command}: the server refused the profile ${clean(JSON.stringify(id))} (${errors.length} invalid field${errors.length === 1 ? '' : 's'}):\n` +
        // What a server says is redacted before it is printed: a proxy or a debug build may echo a credential.
        errors
          .map((e) => `  ${clean(redactSecrets(e.path || '/'))}: ${clean(redactSecrets(e.message))}\n`)
          .join(''),
    );
    process.exit(1);
  }
  const saved = reply.body as DynamicProfile;
  process.stdout.write(
    `profile ${clean(saved.id)} stored: version ${saved.version}, candidates ${saved.candidates.map((c) => clean(c.profile_id)).join(', ')}\n`,
  );
}

async function get(id: string, flags: ServerFlags & { readonly json?: boolean }): Promise<void> {
  const command = 'profiles get';
  const reply = await getJson(
    targetOf(command, flags),
    `/v1/profiles/${encodeURIComponent(checkedId(command, id))}`,
    profileShape,
  );
  if (!reply.ok) exitWithFailure(command, reply.failure);
  const profile = reply.body as DynamicProfile;
  if (flags.json === true) {
    process.stdout.write(`${escapeControlsInJson(JSON.stringify(profile, null, 2))}\n`);
    return;
  }
  process.stdout.write(
    `${clean(profile.id)} (${clean(profile.name)}), version ${profile.version}\n` +
      profile.candidates
        .map(
          (c) =>
            `  ${clean(c.profile_id)}${c.enabled ? '' : ' (disabled)'}\n${renderSchedule(previewSchedule(c.policy), '    ')}`,
        )
        .join(''),
  );
}

async function list(flags: ServerFlags & { readonly json?: boolean }): Promise<void> {
  const command = 'profiles list';
  const reply = await getJson(targetOf(command, flags), '/v1/profiles', { profiles: 'array' });
  if (!reply.ok) exitWithFailure(command, reply.failure);
  const { profiles } = reply.body as { profiles: { id: string; name: string; version: number }[] };
  if (flags.json === true) {
    for (const p of profiles) process.stdout.write(`${escapeControlsInJson(JSON.stringify(p))}\n`);
  } else if (profiles.length === 0) {
    process.stdout.write('No profiles.\n');
  } else {
    process.stdout.write(
      renderTable(
        ['ID', 'NAME', 'VERSION'],
        profiles.map((p) => [clean(p.id), clean(p.name), clean(String(p.version))]),
      ),
    );
  }
}

async function remove(id: string, flags: ServerFlags & { readonly ifVersion?: string }): Promise<void> {
  const command = 'profiles delete';
  const target = targetOf(command, flags);
  const version =
    flags.ifVersion === undefined
      ? undefined
      : wholeNumber(command, '--if-version', flags.ifVersion, 1, Number.MAX_SAFE_INTEGER);
  const reply = await deleteJson(
    target,
    `/v1/profiles/${encodeURIComponent(checkedId(command, id))}`,
    version === undefined ? {} : { 'if-match': `"${version}"` },
  );
  if (!reply.ok) exitWithFailure(command, reply.failure);
  process.stdout.write(`profile ${clean(id)} deleted\n`);
}

/** The `errors: [{path, message}]` of a 422. */
function fieldErrorsOf(body: unknown): { path: string; message: string }[] {
  if (typeof body !== 'object' || body === null || !('errors' in body) || !Array.isArray(body.errors))
    return [];
  return (body.errors as unknown[]).flatMap((e) =>
    typeof e === 'object' && e !== null && 'path' in e && 'message' in e
      ? [{ path: String(e.path), message: String(e.message) }]
      : [],
  );
}
