import type pg from 'pg';
import { RalphError } from '../../lib/errors.js';

/** One step of the schema; applied once, in order, in a transaction of its own. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'items, fleet control and runners',
    sql: `
      CREATE SEQUENCE ralph_changes;
      CREATE TABLE ralph_items (
        queue text NOT NULL,
        id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        status text NOT NULL,
        priority integer NOT NULL,
        created_at timestamptz NOT NULL,
        not_before timestamptz,
        retry_after timestamptz,
        depends_on text[] NOT NULL,
        work_dir text NOT NULL,
        attempts integer NOT NULL,
        lease_session text,
        lease_runner text,
        lease_workspace text,
        lease_until timestamptz,
        changed bigint NOT NULL,
        doc jsonb NOT NULL,
        PRIMARY KEY (queue, id)
      );
      CREATE INDEX ralph_items_runnable ON ralph_items
        (queue, (status = 'interrupted') DESC, priority DESC, created_at, seq)
        WHERE status IN ('pending', 'interrupted');
      CREATE INDEX ralph_items_leases ON ralph_items (queue, lease_until) WHERE status = 'running';
      CREATE INDEX ralph_items_dependents ON ralph_items USING gin (depends_on);
      CREATE TABLE ralph_control (
        queue text PRIMARY KEY,
        paused text,
        paused_at timestamptz,
        paused_by text
      );
      CREATE TABLE ralph_runners (
        id text PRIMARY KEY,
        queue text NOT NULL,
        host text NOT NULL,
        pid integer NOT NULL,
        workspace text NOT NULL,
        workers integer NOT NULL,
        started_at timestamptz NOT NULL,
        heartbeat_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'the fleet sessions index and daily spend',
    sql: `
      CREATE TABLE ralph_sessions (
        queue text NOT NULL,
        session_id text NOT NULL,
        item_id text NOT NULL,
        host text NOT NULL,
        started_at timestamptz NOT NULL,
        entry jsonb NOT NULL,
        PRIMARY KEY (queue, session_id)
      );
      CREATE INDEX ralph_sessions_started ON ralph_sessions (queue, started_at);
      CREATE TABLE ralph_spend (
        queue text NOT NULL,
        day date NOT NULL,
        cost_usd double precision NOT NULL,
        sessions integer NOT NULL,
        PRIMARY KEY (queue, day)
      );
    `,
  },
  {
    // Items may be "landing", which a ralph of schema 2 does not know: it stops claiming.
    version: 3,
    name: 'items waiting to land',
    sql: `CREATE INDEX ralph_items_landing ON ralph_items (queue) WHERE status = 'landing';`,
  },
  {
    // Items may be "awaiting_checks" or "needs_input", which a ralph of schema 3 does not know:
    // it stops claiming.
    version: 4,
    name: "items awaiting their pull request's checks; no index of dependents",
    // The index of dependents served no query (they ask `= ANY`, which a GIN index does not
    // answer) and cost every claim an insertion into it.
    sql: `
      CREATE INDEX ralph_items_awaiting_checks ON ralph_items (queue) WHERE status = 'awaiting_checks';
      DROP INDEX ralph_items_dependents;
    `,
  },
  {
    // Items may be "parked" (a person stopped them), which a ralph of schema 4 does not know:
    // it stops claiming.
    version: 5,
    name: 'items a person parked',
    sql: `CREATE INDEX ralph_items_parked ON ralph_items (queue) WHERE status = 'parked';`,
  },
  {
    // A pull request that waits for a person is "awaiting_review", no longer "done" with an
    // outcome of "ready_for_review": a ralph of schema 5 does not know it and stops claiming.
    version: 6,
    name: 'pull requests awaiting review',
    sql: `
      UPDATE ralph_items
        SET status = 'awaiting_review', changed = nextval('ralph_changes'),
            doc = jsonb_set(doc, '{status}', '"awaiting_review"')
        WHERE status = 'done' AND doc->>'lastOutcome' = 'ready_for_review';
      CREATE INDEX ralph_items_awaiting_review ON ralph_items (queue) WHERE status = 'awaiting_review';
    `,
  },
  {
    // Items may be "reviewing", which a ralph of schema 6 does not know: it stops claiming.
    version: 7,
    name: 'items waiting for their review',
    sql: `CREATE INDEX ralph_items_reviewing ON ralph_items (queue) WHERE status = 'reviewing';`,
  },
  {
    // Items may be "preparing", which a ralph of schema 7 does not know: it stops claiming.
    version: 8,
    name: 'items whose worktree waits for its setup',
    sql: `CREATE INDEX ralph_items_preparing ON ralph_items (queue) WHERE status = 'preparing';`,
  },
  {
    // Items may be "deciding" (a person's decision carried out), which a ralph of schema 8 does
    // not know: it stops claiming.
    version: 9,
    name: 'items whose decision is carried out',
    sql: `CREATE INDEX ralph_items_deciding ON ralph_items (queue) WHERE status = 'deciding';`,
  },
  {
    // A pull request that waits for a person's merge is "awaiting_merge", its outcome
    // "ready_to_merge" ("review" is the AI reviewer's alone): a ralph of schema 9 does not know
    // it and stops claiming.
    version: 10,
    name: 'pull requests awaiting their merge',
    sql: `
      UPDATE ralph_items
        SET status = 'awaiting_merge', changed = nextval('ralph_changes'),
            doc = jsonb_set(doc, '{status}', '"awaiting_merge"')
        WHERE status = 'awaiting_review';
      UPDATE ralph_items
        SET changed = nextval('ralph_changes'),
            doc = jsonb_set(doc, '{lastOutcome}', '"ready_to_merge"')
        WHERE doc->>'lastOutcome' = 'ready_for_review';
      DROP INDEX IF EXISTS ralph_items_awaiting_review;
      CREATE INDEX IF NOT EXISTS ralph_items_awaiting_merge ON ralph_items (queue) WHERE status = 'awaiting_merge';
    `,
  },
  {
    // Items may be "judging" (several CLIs try them), which a ralph of schema 10 does not know:
    // it stops claiming.
    version: 11,
    name: 'items whose candidates are judged',
    sql: `CREATE INDEX IF NOT EXISTS ralph_items_judging ON ralph_items (queue) WHERE status = 'judging';`,
  },
];

/** The schema version this ralph knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** Taken while migrating: two ralphs starting at once never apply a step twice. */
const MIGRATION_LOCK = 0x7261_6c70; // "ralp"

/** The database's schema version; 0 before the first migration. */
export async function schemaVersion(db: pg.Pool | pg.PoolClient): Promise<number> {
  const { rows } = await db.query<{ exists: boolean }>(
    "SELECT to_regclass('ralph_migrations') IS NOT NULL AS exists",
  );
  if (rows[0]?.exists !== true) return 0;
  const result = await db.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM ralph_migrations',
  );
  return result.rows[0]?.version ?? 0;
}

/** Refuses a database whose schema this ralph does not know, or that is behind it. */
export function checkSchema(version: number, where: string): void {
  if (version > SCHEMA_VERSION)
    throw new RalphError(
      `the queue's database ${where} has schema version ${version}, newer than this ralph knows (${SCHEMA_VERSION}): upgrade ralph on this machine`,
    );
  if (version < SCHEMA_VERSION)
    throw new RalphError(
      `the queue's database ${where} has schema version ${version}; this ralph needs ${SCHEMA_VERSION}: run "ralph db migrate"`,
    );
}

/**
 * Applies the steps the database lacks, under an advisory lock, each in its own transaction.
 * Returns the versions before and after.
 */
export async function migrate(
  pool: pg.Pool,
  where: string,
): Promise<{ from: number; to: number; applied: string[] }> {
  const client = await pool.connect();
  // A lent connection the server ends must fail the next query, not crash the process.
  let broken: Error | undefined;
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS ralph_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const from = await schemaVersion(client);
      if (from > SCHEMA_VERSION) checkSchema(from, where);
      const applied: string[] = [];
      for (const step of MIGRATIONS.filter((m) => m.version > from)) {
        await client.query('BEGIN');
        try {
          await client.query(step.sql);
          await client.query('INSERT INTO ralph_migrations (version, name) VALUES ($1, $2)', [
            step.version,
            step.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
        applied.push(`${step.version}: ${step.name}`);
      }
      return { from, to: Math.max(from, SCHEMA_VERSION), applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
