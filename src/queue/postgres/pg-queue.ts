import type pg from 'pg';
import { InputError, NotFoundError } from '../../lib/errors.js';
import type { Item } from '../item.js';
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
import { holderOf, type ItemStatus } from '../item-status.js';
import {
  applyEvent,
  appliedOrThrow,
  bulkStatusesFor,
  type Applied,
  type ItemEvent,
} from '../lifecycle.js';
import { queueError } from './connection.js';
import { PgFleet } from './fleet.js';
import { ITEM_COLUMNS, itemValues } from './rows.js';
import { ItemsTable, type Db, type ItemsTableOptions } from './items-table.js';
import { PgAnnouncements } from './announcements.js';
import { PgClaims, SATISFYING } from './claims.js';
import { tallyOf } from './tally.js';
import { statusesSql } from './status-sql.js';

export interface PgQueueOptions extends ItemsTableOptions {
  /** A connection of its own, for listening to the queue's notifications. */
  listener: () => pg.Client;
}

/** Rows of one INSERT of an import (Postgres takes at most 65,535 parameters a statement). */
const IMPORT_BATCH = 1000;

/** The advisory lock's first key of a target's landing (the second: the queue and target). */
const STAGE_LOCK = 0x6c61_6e64; // "land"

const IN_SESSION = statusesSql((s) => holderOf(s) === 'worker');

const ITEM_PLACEHOLDERS = ITEM_COLUMNS.split(', ')
  .map((_, i) => `$${i + 3}`)
  .join(', ');

/**
 * The queue in a Postgres database that runners on many machines share. Every change is one
 * transaction over row locks: a claim takes the first runnable row with `FOR UPDATE SKIP
 * LOCKED` (two claimers never wait for, nor take, the same item), and the item itself changes
 * only through the pure transitions the file store applies (the claim's one statement does
 * what its transition does, held to it by a test). A claim gives a lease that the runner
 * renews (`PgClaims`); the lost runner's settle, fenced by the attempt and session, is refused.
 */
export class PgQueue implements Queue {
  readonly where: string;
  readonly fleet: PgFleet;
  private readonly table: ItemsTable;
  private readonly claims: PgClaims;
  private readonly announcements: PgAnnouncements;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PgQueueOptions,
  ) {
    this.where = options.where;
    this.table = new ItemsTable(pool, options);
    this.claims = new PgClaims(this.table);
    this.announcements = new PgAnnouncements(options.name, options.listener);
    this.fleet = new PgFleet({
      name: options.name,
      runner: options.owner.runner,
      leaseSeconds: options.leaseSeconds,
      run: (work) => this.table.run(work),
      announce: (db) => this.table.announce(db),
    });
  }

  list(): Promise<Item[]> {
    return this.table.run(async (db) => this.table.items(db, 'TRUE ORDER BY seq', []));
  }

  snapshot(): Promise<{ items: Item[]; version: number }> {
    return this.table.run(async (db) => {
      const items = await this.table.items(db, 'TRUE ORDER BY seq', []);
      const { rows } = await db.query<{ version: string }>(
        'SELECT last_value AS version FROM ralph_changes',
      );
      return { items, version: Number(rows[0]?.version ?? 0) };
    });
  }

  tally(): Promise<QueueTally> {
    return this.table.run((db) => tallyOf(db, this.options.name));
  }

  dependencyClosure(ids: readonly string[]): Promise<Item[]> {
    return this.table.run((db) => this.table.closure(db, ids, ''));
  }

  add(item: Item, options: AddOptions): Promise<void> {
    return this.table.transaction(async (db) => {
      const [existing] = await this.table.items(db, 'id = $2 FOR UPDATE', [item.id]);
      options.check(item, await this.table.closure(db, item.dependsOn, item.id));
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
        await this.table.write(db, item);
      }
      await this.table.announce(db);
    });
  }

  importItems(added: readonly Item[]): Promise<void> {
    return this.table.transaction(async (db) => {
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
      await this.table.announce(db);
    });
  }

  apply(id: string, event: ItemEvent, check?: ClosureCheck): Promise<Applied> {
    return this.table.transaction(async (db) => {
      const [item] = await this.table.items(db, 'id = $2 FOR UPDATE', [id]);
      const applied = applyEvent(item, event);
      if (applied.kind === 'refused') return applied;
      check?.(applied.item, await this.table.closure(db, applied.item.dependsOn, id));
      await this.table.write(db, applied.item, applied.item.sessions.at(-1));
      await this.table.announce(db);
      return applied;
    });
  }

  applyAll(changes: readonly ItemChange[]): Promise<Item[]> {
    const ids = changes.map((change) => change.id);
    return this.table.transaction(async (db) => {
      const byId = new Map(
        (await this.table.items(db, 'id = ANY($2::text[]) ORDER BY seq FOR UPDATE', [ids])).map(
          (item) => [item.id, item],
        ),
      );
      const changed: Item[] = [];
      for (const { id, event } of changes) {
        const applied = applyEvent(byId.get(id), event);
        if (applied.kind === 'refused') continue;
        await this.table.write(db, applied.item, applied.item.sessions.at(-1));
        changed.push(applied.item);
      }
      if (changed.length > 0) await this.table.announce(db);
      return changed;
    });
  }

  claim(request: ClaimRequest): Promise<Claim> {
    return this.claims.claim(request);
  }

  renew(leases: readonly Lease[]): Promise<void> {
    return this.claims.renew(leases);
  }

  async inStatus(status: ItemStatus): Promise<Item[]> {
    return this.table.run((db) => this.table.items(db, 'status = $2 ORDER BY seq', [status]));
  }

  async lockAlone(what: string): Promise<(() => Promise<void>) | undefined> {
    // A session-level advisory lock, on a connection held while the landing lasts: it goes
    // with the connection if this runner dies.
    const client = await this.table.run((db) => (db as pg.Pool).connect());
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
    return this.table.transaction(async (db) => {
      const orphans = await this.table.items(
        db,
        `status IN (${IN_SESSION}) AND lease_workspace = $2 AND lease_runner <> $3 FOR UPDATE`,
        [this.options.owner.workspace, this.options.owner.runner],
      );
      for (const item of orphans)
        await this.table.write(
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
      if (orphans.length > 0) await this.table.announce(db);
      return orphans.map((item) => item.id);
    });
  }

  retry(selection: Selection): Promise<string[]> {
    return this.change(selection, 'retried', async (db, item, now) => {
      refuseRetryOfPending(item);
      await this.table.write(
        db,
        appliedOrThrow(applyEvent(item, { kind: 'retried', now, force: selection.force })),
      );
    });
  }

  cancel(selection: Selection): Promise<string[]> {
    return this.change(selection, 'cancelled', (db, item, now) =>
      this.table.write(
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
    return this.announcements.subscribe(listener);
  }

  async close(): Promise<void> {
    await this.announcements.close();
    await this.pool.end();
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
    return this.table.transaction(async (db) => {
      const items =
        'ids' in chosen
          ? await this.table.items(db, 'id = ANY($2::text[]) ORDER BY seq FOR UPDATE', [
              [...chosen.ids],
            ])
          : await this.table.items(db, 'status = ANY($2::text[]) ORDER BY seq FOR UPDATE', [
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
      if (ids.length > 0) await this.table.announce(db);
      return [...ids];
    });
  }
}
