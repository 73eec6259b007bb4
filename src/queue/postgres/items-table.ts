import type pg from 'pg';
import type { Item } from '../item.js';
import { holderOf } from '../item-status.js';
import { inTransaction, queueError } from './connection.js';
import { ITEM_COLUMNS, itemOf, itemValues } from './rows.js';
import type { LeaseOwner } from './lease-owner.js';

export type Db = pg.Pool | pg.PoolClient;

/** The channel every change of a queue is announced on (its payload: the queue's name). */
export const CHANGES_CHANNEL = 'ralph_queue';

const ITEM_ASSIGNMENTS = ITEM_COLUMNS.split(', ')
  .map((column, i) => `${column} = $${i + 3}`)
  .join(', ');

export interface ItemsTableOptions {
  /** The queue's name in the database. */
  name: string;
  /** How long a lease lasts without renewal, in seconds. */
  leaseSeconds: number;
  owner: LeaseOwner;
  /** The URL, for error messages (never shown with its password). */
  url: string;
  /** Where the queue is, for messages. */
  where: string;
}

/**
 * One queue's rows of `ralph_items`: the statements every part of the Postgres queue shares
 * (read items, write one back with its lease, announce a change), each error told as the
 * queue's.
 */
export class ItemsTable {
  constructor(
    readonly pool: pg.Pool,
    readonly options: ItemsTableOptions,
  ) {}

  /** Items of this queue matching `where` (its parameters from `$2` on). */
  async items(db: Db, where: string, params: unknown[]): Promise<Item[]> {
    const { rows } = await db.query<{ doc: unknown }>(
      `SELECT doc FROM ralph_items WHERE queue = $1 AND ${where}`,
      [this.options.name, ...params],
    );
    return rows.map((row) => itemOf(row.doc, this.options.where));
  }

  /** An item of a row this queue read. */
  itemOf(doc: unknown): Item {
    return itemOf(doc, this.options.where);
  }

  /** The items `ids` name and what they depend on, transitively, leaving out `except`. */
  async closure(db: Db, ids: readonly string[], except: string): Promise<Item[]> {
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

  /** Writes an item back; `session` leases it (a running item), else its lease is cleared. */
  async write(db: Db, item: Item, session?: string): Promise<void> {
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
  async announce(db: Db): Promise<void> {
    await db.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, this.options.name]);
  }

  async run<T>(work: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await work(this.pool);
    } catch (error) {
      throw queueError(error, this.options.url);
    }
  }

  async transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.pool, work);
    } catch (error) {
      throw queueError(error, this.options.url);
    }
  }
}
