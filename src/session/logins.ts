import { buildAgentEnv } from '../agent/env.js';
import type { CliHolds } from '../agent/cli-holds.js';
import { cliNamed, commandOf } from '../agent/clis/index.js';
import { loginProblem } from '../agent/login.js';
import type { Workspace } from '../config/workspace.js';
import type { ControlFiles } from '../control/files.js';
import type { RunEvents } from '../events/events.js';
import type { Clock } from '../lib/clock.js';
import type { FileCache } from '../lib/file-cache.js';
import type { Item } from '../queue/item.js';
import { clisInUse } from './fallback-clis.js';

/** What a login check reads and tells: the runner's context, in part. */
export interface LoginChecked {
  workspace: Workspace;
  events: RunEvents;
  files: FileCache;
  parentEnv: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  cliHolds: CliHolds;
  controlFiles: Pick<ControlFiles, 'pause'>;
}

/**
 * Each CLI the night will run on, asked now whether it can log in (no token spent): one that
 * surely cannot is held for the run (its items fall back), and when it is some item's only CLI
 * the night is paused with the reason, before any session is paid for. A doubt is said.
 */
export async function checkLogins(ctx: LoginChecked, items: readonly Item[]): Promise<void> {
  const { workspace, events } = ctx;
  if (!workspace.config.run.checkLogins) return;
  for (const use of await clisInUse(workspace, items, ctx.files)) {
    const cli = cliNamed(use.cli);
    const { env } = buildAgentEnv(ctx.parentEnv, {
      deny: workspace.config.env.deny,
      allow: workspace.config.env.allow,
      credentials: cli.credentials,
      session: {
        sessionId: 'login-check',
        itemId: '',
        iteration: 0,
        interruptFile: workspace.paths.interruptFile,
      },
    });
    const found = await loginProblem(
      cli,
      commandOf(workspace.config, use.cli),
      env,
      ctx.clock.now(),
    );
    if (found === undefined || 'confirmed' in found) continue;
    if (!found.sure) {
      if (use.onlyFor.length > 0)
        events.warn('login_unready', { cli: use.cli, problem: found.problem });
      continue;
    }
    events.error('login_failed', { cli: use.cli, problem: found.problem, items: use.onlyFor });
    ctx.cliHolds.hold(use.cli, { until: Infinity, reason: found.problem, kind: 'credentials' });
    if (use.onlyFor.length > 0)
      await ctx.controlFiles.pause(
        `${found.problem}; ${use.onlyFor.length === 1 ? `item ${use.onlyFor[0]} runs` : `items ${use.onlyFor.join(', ')} run`} on ${use.cli} alone: log it in, then run "ralph resume"`,
      );
  }
}
