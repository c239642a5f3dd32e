export { demoDispatcher, type DemoDispatcher } from './demo-dispatcher.js';
export { startDemoFleet, type DemoFleet, type DemoFleetOptions } from './demo-fleet.js';
export type { DemoLog, DemoLogEntry } from './demo-log.js';
export { formatFleetSummary, type FleetSummary } from './fleet-summary.js';
