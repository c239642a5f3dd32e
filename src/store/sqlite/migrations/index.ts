import type { Migration } from 'kysely';
import { initialMigration } from './0001-initial.js';
import { transcriptMigration } from './0002-transcript.js';
import { attemptNotesMigration } from './0003-attempt-notes.js';
import { routePayloadMigration } from './0004-route-payload.js';
import { eventsMigration } from './0005-events.js';
import { plansMigration } from './0006-plans.js';
import { attemptDelaySourceMigration } from './0007-attempt-delay-source.js';
import { routeLeasesMigration } from './0008-route-leases.js';
import { retiredIdsMigration } from './0009-retired-ids.js';

/** Numbered, append-only migrations: a landed migration is never edited, a change is a new number. */
export const sqliteMigrations: Readonly<Record<string, Migration>> = {
  '0001-initial': initialMigration,
  '0002-transcript': transcriptMigration,
  '0003-attempt-notes': attemptNotesMigration,
  '0004-route-payload': routePayloadMigration,
  '0005-events': eventsMigration,
  '0006-plans': plansMigration,
  '0007-attempt-delay-source': attemptDelaySourceMigration,
  '0008-route-leases': routeLeasesMigration,
  '0009-retired-ids': retiredIdsMigration,
};
