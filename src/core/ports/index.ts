export {
  intentOutcomes,
  type IntentOutcome,
  type RouteFence,
  type ScheduledRoute,
  type Store,
  type StoredAttempt,
  type StoredIntent,
  type StoreTransaction,
} from './store-port.js';
