import { afterAll, describe, expect, it } from 'vitest';
import { dropSchemas } from '../helpers/postgres.js';
import { openSharedNodeDatabase } from '../helpers/shared-node.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema dropped at the end.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

describe('[DUR-06] a shared node asks which of its waiting dispatches were answered elsewhere', () => {
  it('in one statement whatever their number: 70,000 waiting ids are more than a statement takes parameters', async () => {
    const db = await openSharedNodeDatabase(schemas);
    try {
      const ids = Array.from(
        { length: 70_000 },
        (_, i) => `0190e8b4-0000-7000-8000-${String(i).padStart(12, '0')}`,
      );
      await expect(db.cluster!.answeredIntents(ids)).resolves.toEqual([]);
      await expect(db.cluster!.answeredIntents([])).resolves.toEqual([]);
    } finally {
      await db.store.close();
    }
  });
});
