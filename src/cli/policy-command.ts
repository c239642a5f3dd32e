import type { Command } from 'commander';
import { readJsonFile } from './read-json-file.js';
import { renderSchedule } from './schedule-text.js';
import {
  isPlainObjectValue,
  policyWarnings,
  previewSchedule,
  profileWarnings,
  validateDynamicProfile,
  validatePolicyDocument,
  type DynamicProfile,
  type FieldIssue,
  type PolicyDocument,
} from '../core/index.js';
import { escapeControlsInJson } from '../core/text/escape-controls.js';

type Normalized =
  | { readonly kind: 'policy'; readonly document: PolicyDocument }
  | { readonly kind: 'profile'; readonly profile: DynamicProfile };

/**
 * `recourse policy validate FILE`: exit 0 and the normalized document; exit 1 and `{"errors":[{path,message}]}`
 * for an invalid one; exit 2 when the file cannot be read or is not JSON.
 * `recourse policy preview FILE [--json]`: the schedule each class implies.
 * FILE is a version 1 policy document, a legacy rules map, or a dynamic profile (an object with `candidates`).
 * A valid document that may surprise its author (retries without reset waiting ignore provider hints, EVL-16) gets
 * `recourse policy: warning: PATH: MESSAGE` lines on standard error; standard output and the exit code are unchanged.
 */
export function registerPolicyCommand(program: Command): void {
  const policy = program.command('policy').description('validate and preview per-class policy documents');
  policy
    .command('validate')
    .description(
      'validate a policy document, legacy rules map or dynamic profile and print its normalized form',
    )
    .argument('<file>', 'JSON file, or - for standard input')
    .action(async (file: string) => {
      process.exitCode = await run(file, (normalized) => {
        const value = normalized.kind === 'policy' ? normalized.document : normalized.profile;
        process.stdout.write(`${escapeControlsInJson(JSON.stringify(value, null, 2))}\n`);
      });
    });
  policy
    .command('preview')
    .description('show the retry delays, reset waiting and exhausted outcome each class implies')
    .argument('<file>', 'JSON file, or - for standard input')
    .option('--json', 'print the schedule as JSON')
    .action(async (file: string, flags: { json?: boolean }) => {
      process.exitCode = await run(file, (normalized) => {
        if (normalized.kind === 'policy') {
          const schedule = previewSchedule(normalized.document);
          process.stdout.write(flags.json ? `${JSON.stringify(schedule)}\n` : renderSchedule(schedule));
          return;
        }
        const candidates = normalized.profile.candidates.map((c) => ({
          profile_id: c.profile_id,
          enabled: c.enabled,
          ...previewSchedule(c.policy),
        }));
        process.stdout.write(
          flags.json
            ? `${JSON.stringify({ id: normalized.profile.id, candidates })}\n`
            : candidates
                .map((c) => `${c.profile_id}${c.enabled ? '' : ' (disabled)'}\n${renderSchedule(c, '  ')}`)
                .join(''),
        );
      });
    });
}

async function run(file: string, onValid: (normalized: Normalized) => void): Promise<number> {
  const read = await readJsonFile(file);
  if (!read.ok) {
    process.stderr.write(`recourse policy: ${read.message}\n`);
    return 2;
  }
  const isProfile = isPlainObjectValue(read.value) && 'candidates' in read.value;
  const result = isProfile ? validateDynamicProfile(read.value) : validatePolicyDocument(read.value);
  if (!result.ok) {
    const errors = result.issues satisfies readonly FieldIssue[];
    process.stdout.write(`${escapeControlsInJson(JSON.stringify({ errors }))}\n`);
    return 1;
  }
  const normalized: Normalized = isProfile
    ? { kind: 'profile', profile: result.value as DynamicProfile }
    : { kind: 'policy', document: result.value as PolicyDocument };
  const warnings =
    normalized.kind === 'profile' ? profileWarnings(normalized.profile) : policyWarnings(normalized.document);
  for (const w of warnings) process.stderr.write(`recourse policy: warning: ${w.path}: ${w.message}\n`);
  onValid(normalized);
  return 0;
}
