import type { Migration } from 'kysely';
import { initialMigration } from './0001-initial.js';
import { routeLeasesMigration } from './0002-route-leases.js';
import { nodesMigration } from './0003-nodes.js';
import { sessionLifecyclesMigration } from './0004-session-lifecycles.js';
import { eventOrderMigration } from './0005-event-order.js';
import { intentAnswersMigration } from './0006-intent-answers.js';
import { ownAnswersUnannouncedMigration } from './0007-own-answers-unannounced.js';
import { retiredIdsMigration } from './0008-retired-ids.js';
import { retiredIdsCollationMigration } from './0009-retired-ids-collation.js';

/** Numbered, append-only migrations of the PostgreSQL schema: a landed one is never edited, a change is a new number. */
export const postgresMigrations: Readonly<Record<string, Migration>> = {
  '0001-initial': initialMigration,
  '0002-route-leases': routeLeasesMigration,
  '0003-nodes': nodesMigration,
  '0004-session-lifecycles': sessionLifecyclesMigration,
  '0005-event-order': eventOrderMigration,
  '0006-intent-answers': intentAnswersMigration,
  '0007-own-answers-unannounced': ownAnswersUnannouncedMigration,
  '0008-retired-ids': retiredIdsMigration,
  '0009-retired-ids-collation': retiredIdsCollationMigration,
};
