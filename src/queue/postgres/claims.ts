import type pg from 'pg';
import type { Item } from '../item.js';
import { holderOf, statusIs, type ItemStatus } from '../item-status.js';
import { applyEvent, appliedOrThrow } from '../lifecycle.js';
import type { Claim, ClaimRequest } from '../queue.js';
import type { Lease } from '../lease.js';
import { jittered } from '../../lib/backoff.js';
import { checkSchema, schemaVersion } from './migrations.js';
import type { ItemsTable } from './items-table.js';
import { workDirKey } from './rows.js';
import { statusesSql } from './status-sql.js';

/**
 * How long a count of the waiting items is told again (counted down) before a new count: it
 * only numbers the log's "item N of M", and a count of a long queue costs the database more
 * than many claims.
 */
const WAITING_COUNT_MS = 30_000;

const RUNNABLE = statusesSql((s) => statusIs(s, 'runnable'));
const RESUMES = statusesSql((s) => statusIs(s, 'resumesSession'));
const IN_SESSION = statusesSql((s) => holderOf(s) === 'worker');
/** The status a claim gives, as the lifecycle's `claimed` rule has it (held to it by a test). */
const CLAIMED: ItemStatus = 'running';
/** The statuses of a dependency that let its dependents run, as SQL. */
export const SATISFYING = statusesSql((s) => statusIs(s, 'satisfiesDependents'));

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
    WHERE queue = $1 AND status IN (${RUNNABLE})
      AND (not_before IS NULL OR not_before <= $2)
      AND (retry_after IS NULL OR retry_after <= $2)
      ${passingOver ? 'AND NOT (work_dir = ANY($8::text[]))' : ''}
      AND NOT EXISTS (
        SELECT 1 FROM unnest(i.depends_on) AS d(id)
        WHERE NOT EXISTS (
          SELECT 1 FROM ralph_items x
          WHERE x.queue = i.queue AND x.id = d.id AND x.status IN (${SATISFYING})))
    ORDER BY (status IN (${RESUMES})) DESC, priority DESC,
      ${paced ? `array_position($${passingOver ? 9 : 8}::text[], id) NULLS LAST,` : ''}
      created_at, seq
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
  UPDATE ralph_items t SET
    status = '${CLAIMED}', attempts = t.attempts + 1, retry_after = NULL,
    changed = nextval('ralph_changes'),
    lease_session = $3, lease_runner = $4, lease_workspace = $5,
    lease_until = now() + make_interval(secs => $6::double precision),
    doc = (t.doc - 'retryAfter') || jsonb_build_object(
      'status', '${CLAIMED}',
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

/**
 * The Postgres queue's claims and leases: a claim takes the first runnable row with `FOR
 * UPDATE SKIP LOCKED` (two claimers never wait for, nor take, the same item) and gives a lease
 * the runner renews; an expired one is taken back by a sweep (every quarter lease, jittered,
 * and whenever a claim finds nothing).
 */
export class PgClaims {
  private waitingCount: { at: number; count: number } | undefined;
  /** When expired leases are next swept (the first claim sweeps). */
  private nextSweepAt = 0;

  constructor(private readonly table: ItemsTable) {}

  async claim(request: ClaimRequest): Promise<Claim> {
    const { leaseSeconds, where } = this.table.options;
    // Expired leases are swept every so often, and whenever the claim finds nothing.
    const due = request.now >= this.nextSweepAt;
    if (due) {
      this.nextSweepAt = request.now + jittered((leaseSeconds * 1000) / 4);
      // A database migrated past what this ralph knows stops its claims, saying so.
      checkSchema(await this.table.run((db) => schemaVersion(db)), where);
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

  async renew(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    const { name, leaseSeconds } = this.table.options;
    await this.table.run((db) =>
      db.query(
        `UPDATE ralph_items SET lease_until = now() + make_interval(secs => $4::double precision)
         WHERE queue = $1 AND status IN (${IN_SESSION})
           AND (id, lease_session) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
        [name, leases.map((l) => l.itemId), leases.map((l) => l.sessionId), leaseSeconds],
      ),
    );
  }

  /**
   * Claims the first runnable item in one statement: `claim` of the transitions, done by
   * the database on the row it locks (the test suite holds the two to the same result). An
   * item whose work dir this runner uses under another spelling is put back as it was, and
   * its work dir passed over.
   */
  private async claimOne(request: ClaimRequest): Promise<Item | undefined> {
    const passedOver: string[] = [];
    const { owner, leaseSeconds, name } = this.table.options;
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
      const { rows } = await this.table.run((db) =>
        db.query<ClaimedRow>(claimQuery(values, passedOver, request.pace)),
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const item = this.table.itemOf(row.doc);
      if (!request.busy(item)) return item;
      const before = unclaimed(item, row);
      await this.table.run((db) => this.table.write(db, before));
      passedOver.push(workDirKey(before));
    }
  }

  /** Items whose lease expired go back to the queue (their attempt counted); returns their ids. */
  private sweep(request: ClaimRequest): Promise<string[]> {
    return this.table.transaction(async (db) => {
      const { rows } = await db.query<{ doc: unknown; lease_runner: string }>(
        `SELECT doc, lease_runner FROM ralph_items
         WHERE queue = $1 AND status IN (${IN_SESSION}) AND lease_until < now()
         FOR UPDATE SKIP LOCKED`,
        [this.table.options.name],
      );
      for (const row of rows) {
        const item = this.table.itemOf(row.doc);
        await this.table.write(
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
      if (rows.length > 0) await this.table.announce(db);
      return rows.map((row) => this.table.itemOf(row.doc).id);
    });
  }

  /**
   * When a waiting item becomes runnable, and when a retry may (see `nextWakeTime`): an item
   * another runner runs may come back too, at the latest when its lease runs out, so a drained
   * run waits for the fleet's running items as a runner's workers wait for each other's.
   */
  private async wakeTimes(now: number): Promise<{ wakeAt?: number; retryAt?: number }> {
    const { rows } = await this.table.run((db) =>
      db.query<{ wake_at: Date | null; retry_at: Date | null; lease_at: Date | null }>(
        `SELECT
           min(greatest(coalesce(not_before, '-infinity'), coalesce(retry_after, '-infinity')))
             FILTER (WHERE status IN (${RUNNABLE}) AND greatest(coalesce(not_before, '-infinity'), coalesce(retry_after, '-infinity')) > $2) AS wake_at,
           min(retry_after) FILTER (WHERE status IN (${RUNNABLE}) AND retry_after > $2) AS retry_at,
           min(lease_until) FILTER (WHERE status IN (${IN_SESSION})) AS lease_at
         FROM ralph_items WHERE queue = $1 AND status IN (${RUNNABLE}, ${IN_SESSION})`,
        [this.table.options.name, new Date(now)],
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
    const { rows } = await this.table.run((db) =>
      db.query<{ count: string }>(
        `SELECT count(*) AS count FROM ralph_items WHERE queue = $1 AND status IN (${RUNNABLE})`,
        [this.table.options.name],
      ),
    );
    this.waitingCount = { at: now, count: Number(rows[0]?.count ?? 0) };
    return this.waitingCount.count;
  }
}
