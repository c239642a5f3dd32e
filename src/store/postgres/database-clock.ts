import { sql } from 'kysely';

/**
 * The database's clock in epoch ms, read afresh by each statement (`clock_timestamp`, not the transaction's start):
 * the one authority for due times and leases across nodes, whose own clocks may be off.
 */
export const databaseNow = sql<number>`(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
