import { Option, type Command } from 'commander';
import type { PlanErrorsDocument } from '../app/plan-json.js';
import { planErrorFormats, renderPlanErrors, type PlanErrorFormat } from './plan-errors-view.js';
import { checkedPlanId, getJson, runClientCommand, serverConnection } from './server-client.js';
import { planErrorsShape } from './plan-answer-shapes.js';
import { withServerFlags } from './server-flags.js';
import { styleFor } from './plan-style.js';

/** The URL path of a plan's resource. */
export const planPath = (planId: string, rest = ''): string =>
  `/v1/plans/${encodeURIComponent(planId)}${rest}`;

/**
 * `recourse errors PLAN_ID [--format rich|json|plain]` (seed 004's `agents plan errors`, named per the CLI-01
 * decision): reads `GET /v1/plans/{id}/errors` from the server and prints the Plan Errors panel (rich, the
 * default), the JSON document, or plain `Key: value` lines. Colour only on a terminal without NO_COLOR. Exit 0;
 * an unknown --format is exit 2 listing the valid ones; server failures exit as `server-client.ts` says.
 */
export function registerErrorsCommand(program: Command): void {
  withServerFlags(
    program
      .command('errors')
      .description("show a plan's errors, retry decisions and recovery hints (from the Recourse server)")
      .argument('<plan_id>', 'the plan')
      .addOption(
        new Option('--format <format>', 'rich, json or plain').choices(planErrorFormats).default('rich'),
      ),
  ).action(async (planId: string, flags: { format: PlanErrorFormat; server?: string; token?: string }) => {
    await runClientCommand('errors', async () => {
      const id = checkedPlanId(planId);
      const doc = await getJson<PlanErrorsDocument>(
        serverConnection(flags),
        planPath(id, '/errors'),
        planErrorsShape,
      );
      process.stdout.write(renderPlanErrors(doc, flags.format, styleFor(process.stdout, process.env)));
      return 0;
    });
  });
}
