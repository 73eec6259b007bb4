import type { Workspace } from '../../config/workspace.js';
import { redactorFor } from '../../agent/redaction.js';
import { TOLDS, stateFor } from '../../linear/told.js';
import { openLinear } from '../../linear/tracker.js';
import type { Check } from './doctor-check.js';

/**
 * Linear (`linear.team`): the key is set and read, the team's workflow has a state of each type
 * ralph moves issues to, and, when issues are told back, the key may write. Nothing is spent or
 * changed; the key itself is never shown.
 */
export async function checkLinear(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check[]> {
  const { linear } = workspace.config;
  const team = linear.team;
  if (team === undefined) return [];
  try {
    const tracker = await openLinear({ ...linear, token: env[linear.tokenEnv] });
    const viewer = await tracker.viewer();
    const states = await tracker.teamStates(team.toUpperCase());
    const missing = TOLDS.filter((told) => stateFor(told, states) === undefined);
    if (missing.length > 0)
      return [
        {
          verdict: 'FAIL',
          name: 'linear',
          detail: `team ${team}'s workflow has no state to say ${missing.join(', ')} (ralph finds them by type: started, completed, unstarted or backlog)`,
        },
      ];
    if (workspace.config.import.writeBack && !(await tracker.canWrite()))
      return [
        {
          verdict: 'FAIL',
          name: 'linear',
          detail: `the key in ${linear.tokenEnv} reads team ${team} but lacks the "write" scope: import.writeBack moves issues and comments on them; give the key "Write"`,
        },
      ];
    const named = TOLDS.map((told) => `${told}: ${stateFor(told, states)?.name ?? '?'}`).join(', ');
    return [
      {
        verdict: 'ok',
        name: 'linear',
        detail: `team ${team} on ${linear.apiUrl}, read with the key in ${linear.tokenEnv} (${viewer.name}); its states by type: ${named}`,
      },
    ];
  } catch (error) {
    const message = redactorFor(workspace, env).redact(
      error instanceof Error ? error.message : String(error),
    );
    return [{ verdict: 'FAIL', name: 'linear', detail: message }];
  }
}
