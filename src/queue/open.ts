import { databaseUrl } from '../config/database-url.js';
import type { Workspace } from '../config/workspace.js';
import { RalphError } from '../lib/errors.js';
import { FileQueueReader } from './file-queue-reader.js';
import type { Queue, QueueReader } from './queue.js';

/** The queue's database URL, or why there is none for a Postgres queue. */
export function requireDatabaseUrl(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const url = databaseUrl(workspace.config, env);
  if (url === undefined)
    throw new RalphError(
      `${workspace.paths.config}: queue.backend is "postgres", but no database is named: set RALPH_DATABASE_URL (or queue.url)`,
    );
  return url;
}

/** The workspace's queue, on the backend its configuration names. */
export async function openQueue(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  /** Connections a Postgres queue may hold at once: a runner's workers claim side by side. */
  poolSize = 2,
): Promise<Queue> {
  if (workspace.config.queue.backend === 'file') {
    const { FileQueue } = await import('./file-queue.js');
    return new FileQueue(workspace.paths.queue);
  }
  // pg is loaded only by workspaces that use it.
  const { openPostgresQueue } = await import('./postgres/open.js');
  return openPostgresQueue(workspace, requireDatabaseUrl(workspace, env), poolSize);
}

/** The workspace's queue for looking at it: a file queue without the code that changes it. */
export function openQueueReader(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<QueueReader> {
  return workspace.config.queue.backend === 'file'
    ? Promise.resolve(new FileQueueReader(workspace.paths.queue))
    : openQueue(workspace, env);
}

/** Runs `use` with the workspace's queue, closed afterwards. */
export async function withQueue<T>(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  use: (queue: Queue) => Promise<T>,
): Promise<T> {
  return using(await openQueue(workspace, env), use);
}

/** Runs `use` with the workspace's queue opened for looking at it, closed afterwards. */
export async function withQueueReader<T>(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  use: (queue: QueueReader) => Promise<T>,
): Promise<T> {
  return using(await openQueueReader(workspace, env), use);
}

async function using<Q extends QueueReader, T>(
  queue: Q,
  use: (queue: Q) => Promise<T>,
): Promise<T> {
  try {
    return await use(queue);
  } finally {
    await queue.close();
  }
}
