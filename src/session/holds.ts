import type { CliHold } from '../agent/cli-holds.js';
import type { CliName } from '../config/cli-names.js';
import type { SessionHostContext } from './host.js';

/**
 * Holds a CLI back until `hold.until`, said in the log and in status: no session starts on it
 * meanwhile, an author's or an asked one's.
 */
export function holdCli(
  ctx: Pick<SessionHostContext, 'cliHolds' | 'events'>,
  cli: CliName,
  hold: CliHold,
): void {
  ctx.cliHolds.hold(cli, hold);
  ctx.events.warn('cli_held', {
    cli,
    ...(Number.isFinite(hold.until) ? { until: new Date(hold.until).toISOString() } : {}),
    reason: hold.reason,
    kind: hold.kind,
  });
}
