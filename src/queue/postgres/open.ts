import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { displayedUrl } from '../../config/database-url.js';
import type { Workspace } from '../../config/workspace.js';
import { openClient, openPool, queueError } from './connection.js';
import { checkSchema, schemaVersion } from './migrations.js';
import { PgQueue } from './pg-queue.js';

/** Where a workspace's Postgres queue is, for messages (never with the password). */
export function queueWhere(workspace: Workspace, url: string): string {
  return `${displayedUrl(url)} (queue "${workspace.config.queue.name}")`;
}

/**
 * The workspace's queue in Postgres, its schema checked: one this ralph does not know (newer)
 * or one behind it is refused with what to do.
 */
export async function openPostgresQueue(
  workspace: Workspace,
  url: string,
  poolSize: number,
): Promise<PgQueue> {
  const { config } = workspace;
  const where = queueWhere(workspace, url);
  const pool = openPool(url, config.queue, poolSize);
  try {
    checkSchema(await schemaVersion(pool), where);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw queueError(error, url);
  }
  return new PgQueue(pool, {
    name: config.queue.name,
    leaseSeconds: config.queue.lease,
    owner: { runner: randomUUID(), workspace: `${os.hostname()}:${workspace.root}` },
    url,
    where,
    listener: () => openClient(url, config.queue),
  });
}
