import { spawn } from 'node:child_process';
import path from 'node:path';
import { shellQuote } from '../../agent/argv.js';
import type { Workspace } from '../../config/workspace.js';
import { digest } from '../../lib/digest.js';
import { RalphError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { RALPH_BIN } from '../../lib/package-files.js';
import { readRunning } from '../../workspace/sessions.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { Tmux } from '../tmux.js';
import { watchStatus } from './status.js';

/** ralph's argv in a window: the windows run ralph as this process does. */
const ralphArgv = (root: string, ...args: string[]) => [
  process.execPath,
  RALPH_BIN,
  '-C',
  root,
  ...args,
];

/** The tmux session of a workspace: its directory's name, and a hash that tells two apart. */
export function tmuxSessionName(root: string): string {
  const name = path
    .basename(root)
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .slice(0, 40);
  return `ralph-${name}-${digest(root).slice(0, 6)}`;
}

const STATUS_WINDOW = 'status';

/**
 * `ralph watch`: a tmux session of the workspace with a window that shows `ralph status --watch`
 * and keeps one window per running session, each following it as `ralph logs --follow` does.
 * Made when missing, then attached (or switched to inside tmux); `--detach` only makes it.
 */
export async function watchCommand(
  root: string,
  options: { detach?: boolean; sync?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const tmux = new Tmux(env);
  const session = tmuxSessionName(workspace.root);
  if (options.sync === true)
    return watchStatus(workspace, output, env, {
      everyMs: 1000,
      beforeEach: () =>
        syncWindows(workspace, tmux, session).catch((error: unknown) =>
          output.err(`ralph watch: ${error instanceof Error ? error.message : String(error)}`),
        ),
    });
  if (!(await tmux.available()))
    throw new RalphError(
      'ralph watch runs in tmux, which is not installed here (install the "tmux" package). Without it, "ralph status --watch" and "ralph logs --follow <item>" show the same.',
    );
  const statusArgv = ralphArgv(workspace.root, 'watch', '--sync');
  if (!(await tmux.hasSession(session)))
    await tmux.newSession(session, STATUS_WINDOW, workspace.root, statusArgv);
  else if (!(await tmux.windows(session)).some((w) => w.name === STATUS_WINDOW))
    await tmux.newWindow(session, STATUS_WINDOW, workspace.root, statusArgv);
  const [file = 'tmux', ...args] = tmux.attachArgv(session);
  if (options.detach === true || !output.isTTY) {
    output.out(`tmux session ${session} is ready; attach with: ${shellQuote([file, ...args])}`);
    return ExitCode.ok;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'inherit', env: { ...env } });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code === 0 ? ExitCode.ok : ExitCode.usage));
  });
}

/** One window per running session: made when a session starts, closed when it has ended. */
async function syncWindows(workspace: Workspace, tmux: Tmux, session: string): Promise<void> {
  const running = await readRunning(workspace);
  const shown = new Map(
    (await tmux.windows(session)).filter((w) => w.tag !== '').map((w) => [w.tag, w.id]),
  );
  for (const record of running) {
    if (shown.has(record.sessionId)) continue;
    const follow = ralphArgv(workspace.root, 'logs', '--follow', record.sessionId);
    await tmux.newWindow(session, record.itemId, workspace.root, follow, record.sessionId);
  }
  const live = new Set(running.map((r) => r.sessionId));
  for (const [sessionId, window] of shown) if (!live.has(sessionId)) await tmux.killWindow(window);
}
