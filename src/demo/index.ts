export { demoDispatcher, type DemoDispatcher } from './demo-dispatcher.js';
export { startDemoFleet, type DemoFleet } from './demo-fleet.js';
export type { DemoLogEntry } from './demo-log.js';
export { formatFleetSummary, type FleetSummary } from './fleet-summary.js';
