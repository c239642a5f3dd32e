import type { Kysely } from 'kysely';
import { Listeners } from '../support/listeners.js';
import type {
  NewMessage,
  SessionRef,
  TaskSession,
  TaskSessionPageQuery,
  TaskSessions,
  Transcript,
  TranscriptEvent,
  TranscriptMessage,
} from '../core/index.js';
import type { Database, SessionMessageRow } from './schema.js';

export interface TranscriptClock {
  readonly now: () => number;
  readonly newId: () => string;
}

/**
 * The transcript: task session messages in the same database as the route store, written through Kysely, so
 * SQLite and PostgreSQL share this code. On SQLite it runs on the store's one connection, so its queries queue
 * behind a store transaction instead of running inside one (a second connection in this process could block the
 * only thread on SQLite's lock). Every successful mutation is published to subscribers after it is written.
 */
export class KyselyTranscript implements Transcript {
  private readonly listeners = new Listeners<TranscriptEvent>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: TranscriptClock,
  ) {}

  async list(session: SessionRef): Promise<readonly TranscriptMessage[]> {
    const rows = await this.db
      .selectFrom('session_messages')
      .selectAll()
      .where('task_id', '=', session.taskId)
      .where('session_id', '=', session.sessionId)
      .orderBy('created_at_ms')
      .orderBy('id')
      .execute();
    return rows.map(messageOfRow);
  }

  async create(session: SessionRef, message: NewMessage): Promise<TranscriptMessage> {
    const now = this.clock.now();
    const row: SessionMessageRow = {
      id: this.clock.newId(),
      task_id: session.taskId,
      session_id: session.sessionId,
      turn_id: message.turnId,
      kind: message.kind,
      content: message.content,
      metadata: JSON.stringify(message.metadata),
      created_at_ms: now,
      updated_at_ms: now,
    };
    await this.db.insertInto('session_messages').values(row).execute();
    const created = messageOfRow(row);
    this.publish({ type: 'session.message.created', message: created });
    return created;
  }

  async update(
    id: string,
    change: { readonly content: string; readonly metadata: Readonly<Record<string, unknown>> },
  ): Promise<TranscriptMessage | null> {
    const result = await this.db
      .updateTable('session_messages')
      .set({
        content: change.content,
        metadata: JSON.stringify(change.metadata),
        updated_at_ms: this.clock.now(),
      })
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return null;
    const row = await this.db
      .selectFrom('session_messages')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return null;
    const updated = messageOfRow(row);
    this.publish({ type: 'session.message.updated', message: updated });
    return updated;
  }

  async delete(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('session_messages')
      .select(['task_id', 'session_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return false;
    const result = await this.db.deleteFrom('session_messages').where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) !== 1) return false;
    this.publish({
      type: 'session.message.deleted',
      taskId: row.task_id,
      sessionId: row.session_id,
      messageId: id,
    });
    return true;
  }

  subscribe(listener: (event: TranscriptEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  private publish(event: TranscriptEvent): void {
    this.listeners.emit(event);
  }
}

export class KyselyTaskSessions implements TaskSessions {
  constructor(private readonly db: Kysely<Database>) {}

  async create(session: TaskSession): Promise<boolean> {
    const result = await this.db
      .insertInto('task_sessions')
      .values({
        session_id: session.sessionId,
        task_id: session.taskId,
        owner: session.owner,
        route_id: session.routeId,
        created_at_ms: session.createdAtMs,
      })
      // The session id is the key: a second open of it writes nothing, and says so.
      .onConflict((oc) => oc.column('session_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async read(sessionId: string): Promise<TaskSession | null> {
    const row = await this.db
      .selectFrom('task_sessions')
      .selectAll()
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return row === undefined ? null : sessionOfRow(row);
  }

  async list(): Promise<readonly TaskSession[]> {
    const rows = await this.db.selectFrom('task_sessions').selectAll().orderBy('created_at_ms').execute();
    return rows.map(sessionOfRow);
  }

  async page(query: TaskSessionPageQuery): Promise<readonly TaskSession[]> {
    const before = query.before;
    let select = this.db.selectFrom('task_sessions').selectAll();
    if (before !== undefined) {
      select = select.where((eb) =>
        eb.or([
          eb('created_at_ms', '<', before.createdAtMs),
          eb.and([eb('created_at_ms', '=', before.createdAtMs), eb('session_id', '<', before.sessionId)]),
        ]),
      );
    }
    const rows = await select
      .orderBy('created_at_ms', 'desc')
      .orderBy('session_id', 'desc')
      .limit(query.limit)
      .execute();
    return rows.map(sessionOfRow);
  }

  async delete(sessionId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('task_sessions')
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}

function messageOfRow(row: SessionMessageRow): TranscriptMessage {
  return {
    id: row.id,
    taskId: row.task_id,
    sessionId: row.session_id,
    turnId: row.turn_id,
    kind: row.kind,
    content: row.content,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  };
}

function sessionOfRow(row: Database['task_sessions']): TaskSession {
  return {
    sessionId: row.session_id,
    taskId: row.task_id,
    owner: row.owner,
    routeId: row.route_id,
    createdAtMs: row.created_at_ms,
  };
}
