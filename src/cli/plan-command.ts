import { InvalidArgumentError, Option, type Command } from 'commander';
import type { PlanActionAnswer, RecordErrorAnswer } from '../app/plan-service.js';
import type { PlanJson } from '../app/plan-json.js';
import { planPhases, type PlanAction } from '../core/index.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { redactSecrets } from '../core/sanitize/redact-secrets.js';
import { planPath } from './errors-command.js';
import { renderPlanErrorBlock } from './plan-error-block.js';
import { checkedPlanId, postJson, putJson, runClientCommand, serverConnection } from './server-client.js';
import { withServerFlags } from './server-flags.js';
import { configuredPlanShape, planWriteShape } from './plan-answer-shapes.js';
import { styleFor } from './plan-style.js';

interface ServerFlags {
  readonly server?: string;
  readonly token?: string;
}

const describePlan = (plan: PlanJson): string =>
  escapeControlCharacters(`plan ${plan.id}: phase ${plan.phase}, state ${plan.state}`);

/**
 * `recourse plan ...`, client commands of the server's `/v1/plans` endpoints (the CLI-01 decision's names):
 * `retry|prompt|correct|cancel PLAN_ID` and `revert PLAN_ID --to-phase strategize` take a recovery action;
 * `configure PLAN_ID` sets the retry policy (only the flags given change; `--if-revision N` fences it);
 * `complete PLAN_ID --phase P` reports a phase that succeeded (the orchestrator's step); `error PLAN_ID --phase P
 * --message M` records an error and prints the recovery block (`Error [<category>]: ...`). A refused request
 * (409) is one line on stderr and exit 1; a PLAN_ID that cannot be a plan's is exit 2 before anything is sent.
 */
export function registerPlanCommand(program: Command): void {
  const plan = program.command('plan').description('recover plans (talks to the Recourse server)');
  const actions: readonly [string, PlanAction, string][] = [
    ['retry', 'retry', 'run the errored phase again'],
    ['prompt', 'prompt', 'resume the errored phase with guidance'],
    ['correct', 'correct', 'run the errored phase again after correcting its input'],
    ['cancel', 'cancel', 'cancel the plan'],
  ];
  for (const [name, action, description] of actions) {
    withServerFlags(
      plan
        .command(name)
        .description(description)
        .argument('<plan_id>', 'the plan')
        .option('--revision <n>', seenRevision, parseRevision),
    ).action((planId: string, flags: ActionFlags) => act(`plan ${name}`, planId, action, flags));
  }
  withServerFlags(
    plan
      .command('revert')
      .description('go back to an earlier phase and plan again')
      .argument('<plan_id>', 'the plan')
      .addOption(
        new Option('--to-phase <phase>', 'the phase to go back to')
          .choices(['strategize'])
          .makeOptionMandatory(),
      )
      .option('--revision <n>', seenRevision, parseRevision),
  ).action((planId: string, flags: ActionFlags) => act('plan revert', planId, 'revert_strategize', flags));

  withServerFlags(
    plan
      .command('configure')
      .description('create a plan or change its retry policy (only the options given change)')
      .argument('<plan_id>', 'the plan')
      .option(
        '--auto-retry-threshold <n>',
        '0.0 retries automatically, 1.0 always asks a person',
        parseDecimal,
      )
      .option('--max-retries <n>', 'retries after the first attempt (0-10, 0-5 for a subplan)', parseWhole)
      .option('--subplan', 'the plan is a subplan')
      .option('--no-subplan', 'the plan is not a subplan')
      .option(
        '--if-revision <n>',
        'change it only if the plan is still at this revision (0: only create it)',
        parseWhole,
      ),
  ).action(
    async (
      planId: string,
      flags: ServerFlags & {
        autoRetryThreshold?: number;
        maxRetries?: number;
        subplan?: boolean;
        ifRevision?: number;
      },
    ) => {
      await runClientCommand('plan configure', async () => {
        const answer = await putJson<PlanJson>(
          serverConnection(flags),
          planPath(checkedPlanId(planId)),
          {
            ...(flags.autoRetryThreshold === undefined
              ? {}
              : { auto_retry_threshold: flags.autoRetryThreshold }),
            ...(flags.maxRetries === undefined ? {} : { max_retries: flags.maxRetries }),
            ...(flags.subplan === undefined ? {} : { subplan: flags.subplan }),
          },
          configuredPlanShape,
          flags.ifRevision === undefined ? {} : { 'if-match': `"${flags.ifRevision}"` },
        );
        process.stdout.write(
          `${describePlan(answer)}; ${escapeControlCharacters(`auto_retry_threshold ${answer.recovery.auto_retry_threshold}, max_retries ${answer.recovery.max_retries}${answer.recovery.subplan ? ', subplan' : ''}; revision ${answer.revision}`)}\n`,
        );
        return 0;
      });
    },
  );

  withServerFlags(
    plan
      .command('complete')
      .description('report that the current phase succeeded: the plan moves to the next phase')
      .argument('<plan_id>', 'the plan')
      .addOption(
        new Option('--phase <phase>', 'the phase that succeeded').choices(planPhases).makeOptionMandatory(),
      )
      .option('--revision <n>', seenRevision, parseRevision),
  ).action(async (planId: string, flags: ServerFlags & { phase: string; revision?: number }) => {
    await runClientCommand('plan complete', async () => {
      const answer = await postJson<PlanActionAnswer>(
        serverConnection(flags),
        planPath(checkedPlanId(planId), '/complete'),
        { phase: flags.phase, ...(flags.revision === undefined ? {} : { revision: flags.revision }) },
        planWriteShape,
      );
      if (answer.status !== 'changed') return refused('plan complete', answer);
      process.stdout.write(`complete ${flags.phase}: ${describePlan(answer.plan)}\n`);
      return 0;
    });
  });

  withServerFlags(
    plan
      .command('error')
      .description('record a plan error and print its recovery suggestions')
      .argument('<plan_id>', 'the plan')
      .addOption(
        new Option('--phase <phase>', 'the phase that failed').choices(planPhases).makeOptionMandatory(),
      )
      .requiredOption('--message <text>', 'the error message')
      .option('--exception-type <name>', 'the exception type (RuntimeError, TimeoutError, ...)')
      .option('--actor <name>', 'the actor involved')
      .option('--tool-call <name>', 'the tool call that failed'),
  ).action(
    async (
      planId: string,
      flags: ServerFlags & {
        phase: string;
        message: string;
        exceptionType?: string;
        actor?: string;
        toolCall?: string;
      },
    ) => {
      await runClientCommand('plan error', async () => {
        const answer = await postJson<RecordErrorAnswer>(
          serverConnection(flags),
          planPath(checkedPlanId(planId), '/errors'),
          {
            phase: flags.phase,
            message: flags.message,
            ...(flags.exceptionType === undefined ? {} : { exception_type: flags.exceptionType }),
            ...(flags.actor === undefined ? {} : { actor: flags.actor }),
            ...(flags.toolCall === undefined ? {} : { tool_call: flags.toolCall }),
          },
          planWriteShape,
        );
        if (answer.status !== 'recorded') return refused('plan error', answer);
        process.stdout.write(
          renderPlanErrorBlock(answer.record, answer.decision, styleFor(process.stdout, process.env)),
        );
        return 0;
      });
    },
  );
}

/** What `--revision` says, for `complete` and every recovery action. */
const seenRevision = 'only if the plan is still at this revision (the one you saw)';

type ActionFlags = ServerFlags & { readonly revision?: number };

async function act(name: string, planId: string, action: PlanAction, flags: ActionFlags): Promise<void> {
  await runClientCommand(name, async () => {
    const answer = await postJson<PlanActionAnswer>(
      serverConnection(flags),
      planPath(checkedPlanId(planId), '/actions'),
      { action, ...(flags.revision === undefined ? {} : { revision: flags.revision }) },
      planWriteShape,
    );
    if (answer.status !== 'changed') return refused(name, answer);
    process.stdout.write(`${action}: ${describePlan(answer.plan)}\n`);
    return 0;
  });
}

/** A refusal answered with 2xx (a server may): the same one line and exit 1 as a 409. */
function refused(name: string, answer: { readonly reason: string; readonly message: string }): number {
  // Redacted as a 409's message is (`detailOf`): a proxy or a debug build may echo a credential.
  process.stderr.write(
    `recourse ${name}: refused (${escapeControlCharacters(redactSecrets(answer.reason))}): ${escapeControlCharacters(redactSecrets(answer.message))}\n`,
  );
  return 1;
}

/** A decimal as a person writes it: Number() alone would take 0x1, 1e0 and ' 1 ' as well. */
function parseDecimal(value: string): number {
  if (!/^(\d{1,15}(\.\d{1,15})?|\.\d{1,15})$/.test(value))
    throw new InvalidArgumentError('expected a decimal number such as 0.5');
  return Number(value);
}

/** A revision a person saw: plans start at revision 1, so 0 is a usage error, not a request the server refuses. */
function parseRevision(value: string): number {
  const n = parseWhole(value);
  if (n < 1) throw new InvalidArgumentError('expected a plan revision, a whole number from 1');
  return n;
}

function parseWhole(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}
