import type { DemoDispatcher } from '../demo/index.js';
import type { DemoHook } from './serve-command.js';

/** How often the terminal shows the fleet's counts while the demo runs. */
const summaryEveryMs = 10_000;

/**
 * `recourse serve --demo` (what `npm start` runs): the server's attempts go to the simulated fleet instead of an
 * orchestrator, and the fleet starts once the server listens. Its database is its own (`.recourse/demo.db` by
 * default): the fleet purges finished routes, and must not purge anybody else's.
 */
export function demoHook(): DemoHook {
  let dispatcher: DemoDispatcher | null = null;
  return {
    // Loaded only when the demo runs: the other commands start without it.
    async options(options) {
      const { demoDispatcher } = await import('../demo/index.js');
      return { ...options, dispatcher: () => (dispatcher = demoDispatcher()) };
    },
    async start(service) {
      const { formatFleetSummary, startDemoFleet } = await import('../demo/index.js');
      const fleet = await startDemoFleet({
        recourse: service.recourse,
        dispatcher: dispatcher!,
        log: (entry) => service.log[entry.level]({ route: entry.routeId }, entry.message),
      });
      process.stdout.write(
        'The demo fleet is running: a dozen simulated agent sessions meeting provider faults on a loop.\n' +
          `Watch it: recourse routes list · recourse events · ${service.url}/v1/events\n`,
      );
      const timer = setInterval(() => {
        fleet.summary().then(
          (summary) => process.stdout.write(`${formatFleetSummary(summary)}\n`),
          () => undefined,
        );
      }, summaryEveryMs);
      timer.unref();
      return async () => {
        clearInterval(timer);
        await fleet.stop();
      };
    },
  };
}
