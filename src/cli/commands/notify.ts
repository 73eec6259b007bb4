import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { redactorFor } from '../../agent/redaction.js';
import { send } from '../../notify/channels.js';
import { targetName } from '../../notify/message.js';
import { openWorkspace } from '../open-workspace.js';
import { TRY_TIMEOUT_MS } from '../../notify/night.js';
import type { Output } from '../output.js';

/**
 * `ralph notify test`: a test message to every notifier of `notify`, each said sent or not
 * (and why); exit 1 when one was not.
 */
export async function notifyTestCommand(
  root: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const { notify } = workspace.config;
  if (notify.length === 0)
    throw new InputError(
      `${workspace.paths.config} has no notifier: add one to "notify" (a webhook, slack, ntfy or command; see docs/import-and-notifications.md)`,
    );
  const redactor = redactorFor(workspace, env);
  const now = new Date().toISOString();
  let failed = 0;
  for (const [index, notifier] of notify.entries()) {
    const name = targetName({ kind: 'notifier', index, notifier: notifier.kind });
    try {
      await send(
        notifier,
        {
          events: ['test'],
          title: `ralph (${workspace.config.rig || workspace.root}): a test message`,
          text: `ralph notify test: ${name} works. It is sent ${notifier.events === undefined ? 'every event' : notifier.events.join(', ')}.`,
          at: now,
          data: {},
        },
        {
          env,
          signal: AbortSignal.timeout(TRY_TIMEOUT_MS),
          cwd: workspace.root,
          timeoutMs: TRY_TIMEOUT_MS,
          id: `test-${Date.now()}-${index}`,
        },
      );
      output.out(`${name}: sent`);
    } catch (error) {
      failed++;
      output.out(
        `${name}: not sent: ${redactor.redact(error instanceof Error ? error.message : String(error))}`,
      );
    }
  }
  return failed === 0 ? ExitCode.ok : ExitCode.itemsFailed;
}
