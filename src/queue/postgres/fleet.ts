import type pg from 'pg';
import type { FleetRunner } from '../fleet-runner.js';
import type { Fleet, FleetPause, FleetSession } from '../queue.js';

type Db = pg.Pool | pg.PoolClient;

export interface PgFleetOptions {
  name: string;
  /** This process's runner id (its leases' owner). */
  runner: string;
  leaseSeconds: number;
  /** Runs a statement, its errors reported as the queue's. */
  run: <T>(work: (db: Db) => Promise<T>) => Promise<T>;
  /** Wakes the fleet's runners (a notification on the queue's channel). */
  announce: (db: Db) => Promise<void>;
}

/** A runner whose heartbeat is older than this many leases is gone from the table's view. */
const GONE_AFTER_LEASES = 3;

/** The fleet's control row and runners table in the queue's database. */
export class PgFleet implements Fleet {
  /** This runner's row, once it joined: each heartbeat writes it again if it went missing. */
  private row: { host: string; pid: number; workspace: string; workers: number } | undefined;

  constructor(private readonly options: PgFleetOptions) {}

  pauseState(): Promise<FleetPause | undefined> {
    return this.options.run(async (db) => {
      const { rows } = await db.query<{
        paused: string | null;
        paused_at: Date;
        paused_by: string;
      }>('SELECT paused, paused_at, paused_by FROM ralph_control WHERE queue = $1', [
        this.options.name,
      ]);
      const row = rows[0];
      return row?.paused == null
        ? undefined
        : { reason: row.paused, at: row.paused_at.toISOString(), by: row.paused_by };
    });
  }

  pause(reason: string, by: string): Promise<void> {
    return this.options.run(async (db) => {
      await db.query(
        `INSERT INTO ralph_control (queue, paused, paused_at, paused_by) VALUES ($1, $2, now(), $3)
         ON CONFLICT (queue) DO UPDATE SET paused = $2, paused_at = now(), paused_by = $3`,
        [this.options.name, reason, by],
      );
      await this.options.announce(db);
    });
  }

  async resume(): Promise<FleetPause | undefined> {
    const was = await this.pauseState();
    await this.options.run(async (db) => {
      await db.query('UPDATE ralph_control SET paused = NULL WHERE queue = $1', [
        this.options.name,
      ]);
      await this.options.announce(db);
    });
    return was;
  }

  async join(runner: {
    host: string;
    pid: number;
    workspace: string;
    workers: number;
  }): Promise<void> {
    this.row = runner;
    await this.options.run((db) =>
      db.query(
        `DELETE FROM ralph_runners WHERE queue = $1 AND heartbeat_at < now() - interval '1 day'`,
        [this.options.name],
      ),
    );
    await this.heartbeat();
  }

  async heartbeat(): Promise<void> {
    const row = this.row;
    if (row === undefined) return;
    await this.options.run((db) =>
      db.query(
        `INSERT INTO ralph_runners (id, queue, host, pid, workspace, workers, started_at, heartbeat_at)
         VALUES ($1, $2, $3, $4, $5, $6, now(), now())
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
        [this.options.runner, this.options.name, row.host, row.pid, row.workspace, row.workers],
      ),
    );
  }

  async leave(): Promise<void> {
    await this.options.run((db) =>
      db.query('DELETE FROM ralph_runners WHERE id = $1', [this.options.runner]),
    );
  }

  runners(): Promise<FleetRunner[]> {
    return this.options.run(async (db) => {
      const { rows } = await db.query<{
        id: string;
        host: string;
        pid: number;
        workspace: string;
        workers: number;
        started_at: Date;
        heartbeat_at: Date;
        items: string[] | null;
      }>(
        `SELECT r.*, (SELECT array_agg(i.id ORDER BY i.id) FROM ralph_items i
                      WHERE i.queue = r.queue AND i.status = 'running' AND i.lease_runner = r.id) AS items
         FROM ralph_runners r
         WHERE r.queue = $1 AND r.heartbeat_at > now() - make_interval(secs => $2::double precision)
         ORDER BY r.host, r.started_at`,
        [this.options.name, this.options.leaseSeconds * GONE_AFTER_LEASES],
      );
      return rows.map((row) => ({
        id: row.id,
        host: row.host,
        pid: row.pid,
        workspace: row.workspace,
        workers: row.workers,
        startedAt: row.started_at.toISOString(),
        heartbeatAt: row.heartbeat_at.toISOString(),
        items: row.items ?? [],
      }));
    });
  }

  async recordSession(entry: FleetSession): Promise<void> {
    await this.options.run((db) =>
      db.query(
        `INSERT INTO ralph_sessions (queue, session_id, item_id, host, started_at, entry)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (queue, session_id) DO UPDATE SET entry = $6`,
        [
          this.options.name,
          entry.sessionId,
          entry.itemId,
          entry.host,
          entry.startedAt,
          JSON.stringify(entry),
        ],
      ),
    );
  }

  sessions(): Promise<FleetSession[]> {
    return this.options.run(async (db) => {
      const { rows } = await db.query<{ entry: FleetSession }>(
        'SELECT entry FROM ralph_sessions WHERE queue = $1 ORDER BY started_at, session_id',
        [this.options.name],
      );
      return rows.map((row) => row.entry);
    });
  }

  async recordSpend(costUsd: number, now: number): Promise<void> {
    await this.options.run((db) =>
      db.query(
        `INSERT INTO ralph_spend (queue, day, cost_usd, sessions) VALUES ($1, $2, $3, 1)
         ON CONFLICT (queue, day) DO UPDATE
           SET cost_usd = ralph_spend.cost_usd + $3, sessions = ralph_spend.sessions + 1`,
        [this.options.name, dayOf(now), costUsd],
      ),
    );
  }

  spentOn(now: number): Promise<number> {
    return this.options.run(async (db) => {
      const { rows } = await db.query<{ cost_usd: number }>(
        'SELECT cost_usd FROM ralph_spend WHERE queue = $1 AND day = $2',
        [this.options.name, dayOf(now)],
      );
      return rows[0]?.cost_usd ?? 0;
    });
  }
}

/** The UTC day of a time, as Postgres takes a date. */
const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10);
