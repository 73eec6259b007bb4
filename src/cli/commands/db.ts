import { RalphError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { requireDatabaseUrl } from '../../queue/open.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** `ralph db migrate`: the queue's database schema brought up to this ralph's. */
export async function migrateCommand(
  root: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  if (workspace.config.queue.backend !== 'postgres')
    throw new RalphError(
      `${workspace.paths.config}: the queue is a file (queue.backend "file"); there is no database to migrate`,
    );
  const url = requireDatabaseUrl(workspace, env);
  const { openPool, queueError } = await import('../../queue/postgres/connection.js');
  const { migrate } = await import('../../queue/postgres/migrations.js');
  const { queueWhere } = await import('../../queue/postgres/open.js');
  const where = queueWhere(workspace, url);
  const pool = openPool(url, workspace.config.queue, 1);
  try {
    const { from, to, applied } = await migrate(pool, where).catch((error: unknown) => {
      throw queueError(error, url);
    });
    for (const step of applied) output.out(`applied ${step}`);
    output.out(
      from === to
        ? `${where}: schema version ${to}, up to date`
        : `${where}: schema version ${from} → ${to}`,
    );
  } finally {
    await pool.end().catch(() => undefined);
  }
  return ExitCode.ok;
}
