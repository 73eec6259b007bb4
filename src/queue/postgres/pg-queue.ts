import type pg from 'pg';
import { InputError, NotFoundError } from '../../lib/errors.js';
import type { Item, ItemDecision } from '../item.js';
import { decidingWhy } from '../tally.js';
import type {
  AddOptions,
  Claim,
  ClaimRequest,
  ClosureCheck,
  ItemChange,
  Queue,
  QueueAnnouncement,
  QueueTally,
  Selection,
} from '../queue.js';
import type { Lease, SettlePolicy } from '../lease.js';
import {
  chosenOf,
  refuseOrphaningRemoval,
  refuseQueued,
  refuseRetryOfPending,
  refuseRunning,
} from '../selection.js';
import { statusesWhere, type ItemStatus, holderOf } from '../item-status.js';
import {
  applyEvent,
  appliedOrThrow,
  bulkStatusesFor,
  type Applied,
  type ItemEvent,
} from '../lifecycle.js';
import { jittered } from '../../lib/backoff.js';
import { inTransaction, queueError } from './connection.js';
import { checkSchema, schemaVersion } from './migrations.js';
import { PgFleet } from './fleet.js';
import { ITEM_COLUMNS, itemOf, itemValues, workDirKey } from './rows.js';

/** Who holds the leases this queue's claims take: one runner process of one workspace. */
export interface LeaseOwner {
  /** Unique per runner process. */
  runner: string;
  /** The workspace (host and root): its next runner requeues what a dead one left. */
  workspace: string;
}

export interface PgQueueOptions {
  /** The queue's name in the database. */
  name: string;
  /** How long a lease lasts without renewal, in seconds. */
  leaseSeconds: number;
  owner: LeaseOwner;
  /** The URL, for error messages (never shown with its password). */
  url: string;
  /** Where the queue is, for messages. */
  where: string;
  /** A connection of its own, for listening to the queue's notifications. */
  listener: () => pg.Client;
}

/** Rows of one INSERT of an import (Postgres takes at most 65,535 parameters a statement). */
const IMPORT_BATCH = 1000;

/**
 * How long a count of the waiting items is told again (counted down) before a new count: it
 * only numbers the log's "item N of M", and a count of a long queue costs the database more
 * than many claims.
 */
const WAITING_COUNT_MS = 30_000;

/** The statuses of a dependency that let its dependents run, as SQL. */
const SATISFYING = statusesWhere('satisfiesDependents')
  .map((status) => `'${status}'`)
  .join(', ');

/**
 * The claim: the first runnable row, locked and changed as `claim` changes an item, passing
 * over the work dirs in `$8` when `passingOver` (a rare second try), and ordered among items
 * of one priority by the night plan's pacing (the ids in the last parameter) when `paced`.
 * The usual claim has no array parameter: with one, Postgres cannot estimate a generic plan
 * and plans the statement anew on every claim, which cost three times the claim itself.
 */
const claimStatement = ({ passingOver, paced }: { passingOver: boolean; paced: boolean }) => `
  WITH next AS (
    SELECT queue, id, status AS before_status, doc->>'startedAt' AS before_started,
           doc->>'updatedAt' AS before_updated, doc->>'retryAfter' AS before_retry
    FROM ralph_items i
    WHERE queue = $1 AND status IN ('pending', 'interrupted')
      AND (not_before IS NULL OR not_before <= $2)
      AND (retry_after IS NULL OR retry_after <= $2)
      ${passingOver ? 'AND NOT (work_dir = ANY($8::text[]))' : ''}
      AND NOT EXISTS (
        SELECT 1 FROM unnest(i.depends_on) AS d(id)
        WHERE NOT EXISTS (
          SELECT 1 FROM ralph_items x
          WHERE x.queue = i.queue AND x.id = d.id AND x.status IN (${SATISFYING})))
    ORDER BY (status = 'interrupted') DESC, priority DESC,
      ${paced ? `array_position($${passingOver ? 9 : 8}::text[], id) NULLS LAST,` : ''}
      created_at, seq
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
  UPDATE ralph_items t SET
    status = 'running', attempts = t.attempts + 1, retry_after = NULL,
    changed = nextval('ralph_changes'),
    lease_session = $3, lease_runner = $4, lease_workspace = $5,
    lease_until = now() + make_interval(secs => $6::double precision),
    doc = (t.doc - 'retryAfter') || jsonb_build_object(
      'status', 'running',
      'attempts', t.attempts + 1,
      'sessions', coalesce(t.doc->'sessions', '[]'::jsonb) || to_jsonb($3::text),
      'startedAt', $7::text,
      'updatedAt', $7::text)
  FROM next WHERE t.queue = next.queue AND t.id = next.id
  RETURNING t.doc, next.before_status, next.before_started, next.before_updated, next.before_retry`;

/** Exported for the test that holds Postgres to one plan of it. */
export const CLAIM = claimStatement({ passingOver: false, paced: false });
const CLAIM_PASSING_OVER = claimStatement({ passingOver: true, paced: false });
const CLAIM_PACED = claimStatement({ passingOver: false, paced: true });
const CLAIM_PACED_PASSING_OVER = claimStatement({ passingOver: true, paced: true });

/** The claim's statement for what it passes over and how it is paced. */
function claimQuery(
  values: unknown[],
  passedOver: readonly string[],
  pace: readonly string[] | undefined,
): pg.QueryConfig {
  const paced = pace !== undefined && pace.length > 0;
  if (passedOver.length === 0 && !paced)
    // Prepared once per connection: planning it cost more than running it.
    return { name: 'ralph_claim', text: CLAIM, values };
  if (!paced) return { text: CLAIM_PASSING_OVER, values: [...values, passedOver] };
  return passedOver.length === 0
    ? { text: CLAIM_PACED, values: [...values, pace] }
    : { text: CLAIM_PACED_PASSING_OVER, values: [...values, passedOver, pace] };
}

/** A claimed row, with what the claim changed of it (the rest of the item it left as it was). */
interface ClaimedRow {
  doc: unknown;
  before_status: ItemStatus;
  before_started: string | null;
  before_updated: string | null;
  before_retry: string | null;
}

/**
 * A claimed item as it was before the claim (`claim` of the transitions undone): the claim
 * returns only the fields it changed, not a second copy of the item.
 */
function unclaimed(item: Item, row: ClaimedRow): Item {
  return {
    ...item,
    status: row.before_status,
    attempts: item.attempts - 1,
    sessions: item.sessions.slice(0, -1),
    startedAt: row.before_started ?? undefined,
    updatedAt: row.before_updated ?? undefined,
    retryAfter: row.before_retry ?? undefined,
  };
}

/** The advisory lock's first key of a target's landing (the second: the queue and target). */
const STAGE_LOCK = 0x6c61_6e64; // "land"

/** The wait before listening again after the listening connection broke. */
const RELISTEN_MS = 2_000;

/** The channel every change of a queue is announced on (its payload: the queue's name). */
export const CHANGES_CHANNEL = 'ralph_queue';

const ITEM_PLACEHOLDERS = ITEM_COLUMNS.split(', ')
  .map((_, i) => `$${i + 3}`)
  .join(', ');
const ITEM_ASSIGNMENTS = ITEM_COLUMNS.split(', ')
  .map((column, i) => `${column} = $${i + 3}`)
  .join(', ');

type Db = pg.Pool | pg.PoolClient;

/**
 * The queue in a Postgres database that runners on many machines share. Every change is one
 * transaction over row locks: a claim takes the first runnable row with `FOR UPDATE SKIP
 * LOCKED` (two claimers never wait for, nor take, the same item), and the item itself changes
 * only through the pure transitions the file store applies (the claim's one statement does
 * what its transition does, held to it by a test). A claim gives a lease that the runner
 * renews; an expired one is taken back by a sweep (every quarter lease, jittered, and whenever
 * a claim finds nothing), and the lost runner's settle, fenced by the attempt and session, is
 * refused.
 */
export class PgQueue implements Queue {
  readonly where: string;
  private readonly listeners = new Set<(cause: QueueAnnouncement) => void>();
  private listening: pg.Client | undefined;
  private closed = false;
  private waitingCount: { at: number; count: number } | undefined;
  /** When expired leases are next swept (the first claim sweeps). */
  private nextSweepAt = 0;
  readonly fleet: PgFleet;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PgQueueOptions,
  ) {
    this.where = options.where;
    this.fleet = new PgFleet({
      name: options.name,
      runner: options.owner.runner,
      leaseSeconds: options.leaseSeconds,
      run: (work) => this.run(work),
      announce: (db) => this.announce(db),
    });
  }

  list(): Promise<Item[]> {
    return this.run(async (db) => this.items(db, 'TRUE ORDER BY seq', []));
  }

  snapshot(): Promise<{ items: Item[]; version: number }> {
    return this.run(async (db) => {
      const items = await this.items(db, 'TRUE ORDER BY seq', []);
      const { rows } = await db.query<{ version: string }>(
        'SELECT last_value AS version FROM ralph_changes',
      );
      return { items, version: Number(rows[0]?.version ?? 0) };
    });
  }

  tally(): Promise<QueueTally> {
    return this.run(async (db) => {
      const [counts, running, version, landedOn, refused, pulls, questions, stalled] =
        await Promise.all([
          db.query<{ status: ItemStatus; count: string }>(
            'SELECT status, count(*) AS count FROM ralph_items WHERE queue = $1 GROUP BY status',
            [this.options.name],
          ),
          db.query<{ id: string; branch: string }>(
            "SELECT id, doc->>'branch' AS branch FROM ralph_items WHERE queue = $1 AND status = 'running' AND doc ? 'branch'",
            [this.options.name],
          ),
          db.query<{ version: string }>('SELECT last_value AS version FROM ralph_changes'),
          db.query<{ target: string; landed: string; commit: string }>(
            `SELECT doc->>'landedOn' AS target, count(*) AS landed,
                  (array_agg(doc->>'landedCommit' ORDER BY doc->>'landedAt' DESC NULLS LAST))[1] AS commit
             FROM ralph_items WHERE queue = $1 AND doc ? 'landedOn' AND doc ? 'landedCommit'
            GROUP BY 1 ORDER BY 1`,
            [this.options.name],
          ),
          db.query<{ id: string; status: ItemStatus; error: string | null }>(
            `SELECT id, status, doc->>'lastError' AS error FROM ralph_items
            WHERE queue = $1 AND doc ? 'landFailure' ORDER BY id`,
            [this.options.name],
          ),
          db.query<{
            id: string;
            status: ItemStatus;
            pr: { number: number; url: string };
            checks: string | null;
          }>(
            `SELECT id, status, doc->'pullRequest' AS pr, doc->>'checks' AS checks FROM ralph_items
            WHERE queue = $1 AND doc ? 'pullRequest'
              AND status IN ('awaiting_checks', 'awaiting_merge')
            ORDER BY (doc->'pullRequest'->>'number')::int`,
            [this.options.name],
          ),
          db.query<{ id: string; question: string | null }>(
            `SELECT id, doc->>'question' AS question FROM ralph_items
            WHERE queue = $1 AND status = 'needs_input' ORDER BY id`,
            [this.options.name],
          ),
          db.query<{
            id: string;
            status: 'reviewing' | 'deciding';
            unreviewed: string | null;
            decision: ItemDecision | null;
          }>(
            `SELECT id, status, doc->>'unreviewed' AS unreviewed, doc->'decision' AS decision
             FROM ralph_items
            WHERE queue = $1 AND (status = 'deciding' OR (status = 'reviewing' AND doc ? 'unreviewed'))
            ORDER BY id`,
            [this.options.name],
          ),
        ]);
      return {
        counts: Object.fromEntries(counts.rows.map((r) => [r.status, Number(r.count)])),
        version: Number(version.rows[0]?.version ?? 0),
        branches: Object.fromEntries(running.rows.map((r) => [r.id, r.branch])),
        landings: {
          targets: landedOn.rows.map((r) => ({
            target: r.target,
            landed: Number(r.landed),
            commit: r.commit,
          })),
          refused: refused.rows.map((r) => ({ id: r.id, status: r.status, error: r.error ?? '' })),
        },
        pullRequests: pulls.rows.map((r) => ({
          id: r.id,
          number: r.pr.number,
          url: r.pr.url,
          status: r.status,
          ...(r.checks === null ? {} : { checks: r.checks }),
        })),
        questions: questions.rows.map((r) => ({ id: r.id, question: r.question ?? '' })),
        stalled: stalled.rows.map((r) => ({
          id: r.id,
          status: r.status,
          why:
            holderOf(r.status) === 'reviewer'
              ? (r.unreviewed ?? '')
              : decidingWhy({ decision: r.decision ?? undefined }),
        })),
      };
    });
  }

  dependencyClosure(ids: readonly string[]): Promise<Item[]> {
    return this.run((db) => this.closure(db, ids, ''));
  }

  add(item: Item, options: AddOptions): Promise<void> {
    return this.transaction(async (db) => {
      const [existing] = await this.items(db, 'id = $2 FOR UPDATE', [item.id]);
      options.check(item, await this.closure(db, item.dependsOn, item.id));
      if (existing === undefined) {
        await db
          .query(
            `INSERT INTO ralph_items (queue, id, ${ITEM_COLUMNS}, changed) VALUES ($1, $2, ${ITEM_PLACEHOLDERS}, nextval('ralph_changes'))`,
            [this.options.name, item.id, ...itemValues(item)],
          )
          .catch((error: unknown) => {
            // Another `ralph add` of the same id won the race.
            if ((error as { code?: string }).code === '23505')
              throw new InputError(
                `an item with id ${JSON.stringify(item.id)} is already queued (use ${options.replaceFlag})`,
              );
            throw error;
          });
      } else {
        if (!options.replace)
          throw new InputError(
            `an item with id ${JSON.stringify(item.id)} is already queued (use ${options.replaceFlag})`,
          );
        if (holderOf(existing.status) === 'worker')
          throw new InputError(
            `item ${JSON.stringify(item.id)} is running; it cannot be replaced now`,
          );
        await this.write(db, item);
      }
      await this.announce(db);
    });
  }

  importItems(added: readonly Item[]): Promise<void> {
    return this.transaction(async (db) => {
      const { rows } = await db.query<{ id: string }>(
        'SELECT id FROM ralph_items WHERE queue = $1 AND id = ANY($2::text[])',
        [this.options.name, added.map((item) => item.id)],
      );
      refuseQueued(added, new Set(rows.map((row) => row.id)));
      const columns = ITEM_COLUMNS.split(', ').length + 1;
      for (let start = 0; start < added.length; start += IMPORT_BATCH) {
        const batch = added.slice(start, start + IMPORT_BATCH);
        const tuples = batch.map(
          (_, row) =>
            `($1, ${Array.from({ length: columns }, (_, c) => `$${2 + row * columns + c}`).join(', ')}, nextval('ralph_changes'))`,
        );
        await db.query(
          `INSERT INTO ralph_items (queue, id, ${ITEM_COLUMNS}, changed) VALUES ${tuples.join(', ')}`,
          [this.options.name, ...batch.flatMap((item) => [item.id, ...itemValues(item)])],
        );
      }
      await this.announce(db);
    });
  }

  apply(id: string, event: ItemEvent, check?: ClosureCheck): Promise<Applied> {
    return this.transaction(async (db) => {
      const [item] = await this.items(db, 'id = $2 FOR UPDATE', [id]);
      const applied = applyEvent(item, event);
      if (applied.kind === 'refused') return applied;
      check?.(applied.item, await this.closure(db, applied.item.dependsOn, id));
      await this.write(db, applied.item, applied.item.sessions.at(-1));
      await this.announce(db);
      return applied;
    });
  }

  applyAll(changes: readonly ItemChange[]): Promise<Item[]> {
    const ids = changes.map((change) => change.id);
    return this.transaction(async (db) => {
      const byId = new Map(
        (await this.items(db, 'id = ANY($2::text[]) ORDER BY seq FOR UPDATE', [ids])).map(
          (item) => [item.id, item],
        ),
      );
      const changed: Item[] = [];
      for (const { id, event } of changes) {
        const applied = applyEvent(byId.get(id), event);
        if (applied.kind === 'refused') continue;
        await this.write(db, applied.item, applied.item.sessions.at(-1));
        changed.push(applied.item);
      }
      if (changed.length > 0) await this.announce(db);
      return changed;
    });
  }

  async claim(request: ClaimRequest): Promise<Claim> {
    // Expired leases are swept every so often, and whenever the claim finds nothing.
    const due = request.now >= this.nextSweepAt;
    if (due) {
      this.nextSweepAt = request.now + jittered((this.options.leaseSeconds * 1000) / 4);
      // A database migrated past what this ralph knows stops its claims, saying so.
      checkSchema(await this.run((db) => schemaVersion(db)), this.options.where);
    }
    let expired: string[] = due ? await this.sweep(request) : [];
    let claimed = await this.claimOne(request);
    if (claimed === undefined && !due) {
      expired = await this.sweep(request);
      if (expired.length > 0) claimed = await this.claimOne(request);
    }
    const waits = claimed === undefined ? await this.wakeTimes(request.now) : {};
    return { ...waits, item: claimed, queued: await this.waiting(claimed), expired };
  }

  /**
   * Claims the first runnable item in one statement: `claim` of the transitions, done by
   * the database on the row it locks (the test suite holds the two to the same result). An
   * item whose work dir this runner uses under another spelling is put back as it was, and
   * its work dir passed over.
   */
  private async claimOne(request: ClaimRequest): Promise<Item | undefined> {
    const passedOver: string[] = [];
    const { owner, leaseSeconds, name } = this.options;
    for (;;) {
      const values = [
        name,
        new Date(request.now),
        request.sessionId,
        owner.runner,
        owner.workspace,
        leaseSeconds,
        new Date(request.now).toISOString(),
      ];
      const { rows } = await this.run((db) =>
        db.query<ClaimedRow>(claimQuery(values, passedOver, request.pace)),
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const item = itemOf(row.doc, this.where);
      if (!request.busy(item)) return item;
      const before = unclaimed(item, row);
      await this.run((db) => this.write(db, before));
      passedOver.push(workDirKey(before));
    }
  }

  async renew(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.run((db) =>
      db.query(
        `UPDATE ralph_items SET lease_until = now() + make_interval(secs => $4::double precision)
         WHERE queue = $1 AND status = 'running'
           AND (id, lease_session) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
        [
          this.options.name,
          leases.map((l) => l.itemId),
          leases.map((l) => l.sessionId),
          this.options.leaseSeconds,
        ],
      ),
    );
  }

  async inStatus(status: ItemStatus): Promise<Item[]> {
    return this.run((db) => this.items(db, 'status = $2 ORDER BY seq', [status]));
  }

  async lockAlone(what: string): Promise<(() => Promise<void>) | undefined> {
    // A session-level advisory lock, on a connection held while the landing lasts: it goes
    // with the connection if this runner dies.
    const client = await this.run((db) => (db as pg.Pool).connect());
    const key: unknown[] = [STAGE_LOCK, `${this.options.name}\n${what}`];
    try {
      const { rows } = await client.query<{ held: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS held',
        key,
      );
      if (rows[0]?.held !== true) {
        client.release();
        return undefined;
      }
    } catch (error) {
      client.release(true);
      throw queueError(error, this.options.url);
    }
    return async () => {
      await client
        .query('SELECT pg_advisory_unlock($1, hashtext($2))', key)
        .then(() => client.release())
        .catch(() => client.release(true));
    };
  }

  requeueOrphans(
    reason: string,
    policy: SettlePolicy,
    spent: ReadonlyMap<string, number> = new Map(),
  ): Promise<string[]> {
    return this.transaction(async (db) => {
      const orphans = await this.items(
        db,
        "status = 'running' AND lease_workspace = $2 AND lease_runner <> $3 FOR UPDATE",
        [this.options.owner.workspace, this.options.owner.runner],
      );
      for (const item of orphans)
        await this.write(
          db,
          appliedOrThrow(
            applyEvent(item, {
              kind: 'runner_died',
              reason,
              policy,
              costUsd: spent.get(item.id) ?? 0,
            }),
          ),
        );
      if (orphans.length > 0) await this.announce(db);
      return orphans.map((item) => item.id);
    });
  }

  retry(selection: Selection): Promise<string[]> {
    return this.change(selection, 'retried', async (db, item, now) => {
      refuseRetryOfPending(item);
      await this.write(
        db,
        appliedOrThrow(applyEvent(item, { kind: 'retried', now, force: selection.force })),
      );
    });
  }

  cancel(selection: Selection): Promise<string[]> {
    return this.change(selection, 'cancelled', (db, item, now) =>
      this.write(
        db,
        appliedOrThrow(applyEvent(item, { kind: 'cancelled', now, force: selection.force })),
      ),
    );
  }

  remove(ids: readonly string[], force: boolean): Promise<string[]> {
    const going = new Set(ids);
    return this.change({ ids }, undefined, async (db, item) => {
      const { rows } = await db.query<{ id: string }>(
        // Dependents not done: a done one waits for nothing (a cancelled one may be retried).
        `SELECT id FROM ralph_items WHERE queue = $1 AND $2 = ANY(depends_on) AND status NOT IN (${SATISFYING}) ORDER BY seq`,
        [this.options.name, item.id],
      );
      refuseOrphaningRemoval(
        item.id,
        rows.map((r) => r.id),
        going,
        force,
      );
      await db.query('DELETE FROM ralph_items WHERE queue = $1 AND id = $2', [
        this.options.name,
        item.id,
      ]);
      await db.query("SELECT nextval('ralph_changes')");
    });
  }

  subscribe(listener: (cause: QueueAnnouncement) => void): () => void {
    this.listeners.add(listener);
    if (this.listening === undefined) void this.listen();
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.listening?.end().catch(() => undefined);
    await this.pool.end();
  }

  /**
   * Keeps a connection listening for the queue's notifications while anyone subscribes; one
   * that breaks (the database restarted) is opened again, and the listeners told, since
   * changes may have been missed meanwhile. Their poll is the fallback all along.
   */
  private async listen(): Promise<void> {
    while (!this.closed && this.listeners.size > 0) {
      const client = this.options.listener();
      this.listening = client;
      const ended = new Promise<void>((resolve) => {
        // Every error, not just the first: an unheard one would end the process.
        client.on('error', () => resolve());
        client.once('end', () => resolve());
      });
      client.on('notification', ({ channel, payload }) => {
        if (channel === CHANGES_CHANNEL && payload === this.options.name) this.tell('changed');
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANGES_CHANNEL}`);
        this.tell('listening');
        await ended;
      } catch {
        // Unreachable now: try again after a pause.
      }
      await client.end().catch(() => undefined);
      if (!this.closed)
        await new Promise((resolve) => setTimeout(resolve, jittered(RELISTEN_MS)).unref());
    }
    this.listening = undefined;
  }

  private tell(cause: QueueAnnouncement): void {
    for (const listener of this.listeners) listener(cause);
  }

  /** Items whose lease expired go back to the queue (their attempt counted); returns their ids. */
  private sweep(request: ClaimRequest): Promise<string[]> {
    return this.transaction(async (db) => {
      const { rows } = await db.query<{ doc: unknown; lease_runner: string }>(
        `SELECT doc, lease_runner FROM ralph_items
         WHERE queue = $1 AND status = 'running' AND lease_until < now()
         FOR UPDATE SKIP LOCKED`,
        [this.options.name],
      );
      for (const row of rows) {
        const item = itemOf(row.doc, this.where);
        await this.write(
          db,
          appliedOrThrow(
            applyEvent(item, {
              kind: 'runner_died',
              reason: `its runner (${row.lease_runner}) stopped renewing its lease`,
              policy: { maxAttempts: request.maxAttempts, retryBackoffCapMs: 0, now: request.now },
              costUsd: 0,
            }),
          ),
        );
      }
      if (rows.length > 0) await this.announce(db);
      return rows.map((row) => itemOf(row.doc, this.where).id);
    });
  }

  /**
   * When a waiting item becomes runnable, and when a retry may (see `nextWakeTime`): an item
   * another runner runs may come back too, at the latest when its lease runs out, so a drained
   * run waits for the fleet's running items as a runner's workers wait for each other's.
   */
  private async wakeTimes(now: number): Promise<{ wakeAt?: number; retryAt?: number }> {
    const { rows } = await this.run((db) =>
      db.query<{ wake_at: Date | null; retry_at: Date | null; lease_at: Date | null }>(
        `SELECT
           min(greatest(coalesce(not_before, '-infinity'), coalesce(retry_after, '-infinity')))
             FILTER (WHERE status <> 'running' AND greatest(coalesce(not_before, '-infinity'), coalesce(retry_after, '-infinity')) > $2) AS wake_at,
           min(retry_after) FILTER (WHERE status <> 'running' AND retry_after > $2) AS retry_at,
           min(lease_until) FILTER (WHERE status = 'running') AS lease_at
         FROM ralph_items WHERE queue = $1 AND status IN ('pending', 'interrupted', 'running')`,
        [this.options.name, new Date(now)],
      ),
    );
    const row = rows[0];
    const retries = [row?.retry_at, row?.lease_at]
      .filter((at): at is Date => at instanceof Date)
      .map((at) => Math.max(at.getTime(), now + 1));
    return {
      wakeAt: row?.wake_at?.getTime(),
      retryAt: retries.length === 0 ? undefined : Math.min(...retries),
    };
  }

  /**
   * How many other items wait to run, for people ("item N of M"). Counting a large queue costs
   * far more than the claim itself, so the count is taken at most every few seconds and
   * counted down by this process's claims in between.
   */
  private async waiting(claimed: Item | undefined): Promise<number | undefined> {
    if (claimed === undefined) return undefined;
    const now = Date.now();
    if (this.waitingCount !== undefined && now - this.waitingCount.at < WAITING_COUNT_MS) {
      this.waitingCount.count = Math.max(0, this.waitingCount.count - 1);
      return this.waitingCount.count;
    }
    const { rows } = await this.run((db) =>
      db.query<{ count: string }>(
        "SELECT count(*) AS count FROM ralph_items WHERE queue = $1 AND status IN ('pending', 'interrupted')",
        [this.options.name],
      ),
    );
    this.waitingCount = { at: now, count: Number(rows[0]?.count ?? 0) };
    return this.waitingCount.count;
  }

  /**
   * Applies `change` to the selected items in one transaction, all or none: one refusal leaves
   * the queue as it was.
   */
  private change(
    selection: Selection,
    event: 'retried' | 'cancelled' | undefined,
    change: (db: Db, item: Item, now: number) => Promise<unknown>,
  ): Promise<string[]> {
    const chosen = chosenOf(selection, event === undefined ? [] : bulkStatusesFor(event));
    return this.transaction(async (db) => {
      const items =
        'ids' in chosen
          ? await this.items(db, 'id = ANY($2::text[]) ORDER BY seq FOR UPDATE', [[...chosen.ids]])
          : await this.items(db, 'status = ANY($2::text[]) ORDER BY seq FOR UPDATE', [
              [...chosen.statuses],
            ]);
      const byId = new Map(items.map((item) => [item.id, item]));
      const ids = 'ids' in chosen ? chosen.ids : items.map((item) => item.id);
      const now = Date.now();
      for (const id of ids) {
        const item = byId.get(id);
        if (item === undefined)
          throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
        refuseRunning(item);
        await change(db, item, now);
      }
      if (ids.length > 0) await this.announce(db);
      return [...ids];
    });
  }

  /** The items `ids` name and what they depend on, transitively, leaving out `except`. */
  private async closure(db: Db, ids: readonly string[], except: string): Promise<Item[]> {
    if (ids.length === 0) return [];
    return this.items(
      db,
      `id <> $3 AND id IN (
         WITH RECURSIVE closure(id) AS (
           SELECT unnest($2::text[])
           UNION
           SELECT unnest(i.depends_on) FROM ralph_items i
           JOIN closure c ON i.queue = $1 AND i.id = c.id AND i.id <> $3)
         SELECT id FROM closure)`,
      [[...ids], except],
    );
  }

  /** Items of this queue matching `where` (its parameters from `$2` on). */
  private async items(db: Db, where: string, params: unknown[]): Promise<Item[]> {
    const { rows } = await db.query<{ doc: unknown }>(
      `SELECT doc FROM ralph_items WHERE queue = $1 AND ${where}`,
      [this.options.name, ...params],
    );
    return rows.map((row) => itemOf(row.doc, this.where));
  }

  /** Writes an item back; `session` leases it (a running item), else its lease is cleared. */
  private async write(db: Db, item: Item, session?: string): Promise<void> {
    const leased = holderOf(item.status) === 'worker' && session !== undefined;
    const { owner, leaseSeconds } = this.options;
    const n = ITEM_COLUMNS.split(', ').length + 3;
    await db.query(
      `UPDATE ralph_items SET ${ITEM_ASSIGNMENTS}, changed = nextval('ralph_changes'),
         lease_session = $${n}::text, lease_runner = $${n + 1}::text,
         lease_workspace = $${n + 2}::text,
         lease_until = CASE WHEN $${n}::text IS NULL THEN NULL
                            ELSE now() + make_interval(secs => $${n + 3}::double precision) END
       WHERE queue = $1 AND id = $2`,
      [
        this.options.name,
        item.id,
        ...itemValues(item),
        leased ? session : null,
        leased ? owner.runner : null,
        leased ? owner.workspace : null,
        leaseSeconds,
      ],
    );
  }

  /** Wakes the runners that listen: delivered when the transaction commits. */
  private async announce(db: Db): Promise<void> {
    await db.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, this.options.name]);
  }

  private async run<T>(work: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await work(this.pool);
    } catch (error) {
      throw queueError(error, this.options.url);
    }
  }

  private async transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.pool, work);
    } catch (error) {
      throw queueError(error, this.options.url);
    }
  }
}
