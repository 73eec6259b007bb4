// ralph watch: a tmux session with the status and one window per running session.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { eventually } from '../support/wait.js';
import { RALPH_BIN, addInOwnDir, ralph, tempDir } from '../support/workspace.js';

let tmuxDir: string | undefined;

/** tmux of this test alone: its own server socket in a temp dir. */
function tmux(...args: string[]): string {
  return execFileSync('tmux', args, {
    env: { ...process.env, TMUX_TMPDIR: tmuxDir, TMUX: '' },
    encoding: 'utf8',
  });
}

const windowNames = (session: string) =>
  tmux('list-windows', '-t', `=${session}`, '-F', '#{window_name}').trim().split('\n').sort();

afterEach(() => {
  if (tmuxDir !== undefined) {
    try {
      tmux('kill-server');
    } catch {
      // No server left.
    }
  }
  tmuxDir = undefined;
});

describe('ralph watch', () => {
  it('keeps a window per running session, closing each when its session ends', async () => {
    tmuxDir = await tempDir('ralph-tmux-');
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'gate');
    for (const id of ['alpha', 'beta'])
      await addInOwnDir(root, id, `#behave: gated gate=${gate}`, env);
    const run = ralph(root, ['run', '--drain', '--workers', '2'], env);
    const made = execFileSync(process.execPath, [RALPH_BIN, '-C', root, 'watch', '--detach'], {
      env: { ...process.env, ...env, TMUX_TMPDIR: tmuxDir, TMUX: '' },
      encoding: 'utf8',
    });
    const session = /tmux session (\S+) is ready/.exec(made)?.[1] ?? '';
    expect(made).toContain(`attach with: tmux attach-session -t =${session}`);

    await eventually(
      () => windowNames(session).join(' ') === 'alpha beta status',
      20_000,
      'a window for each running session',
    );
    // Each window follows its session as ralph logs --follow does.
    await eventually(
      () => tmux('capture-pane', '-p', '-t', `=${session}:=alpha`).includes('before the gate'),
      20_000,
      'the transcript of alpha',
    );
    expect(tmux('capture-pane', '-p', '-t', `=${session}:=alpha`)).toContain('── ralph session');
    await eventually(
      () => /Running: alpha/.test(tmux('capture-pane', '-p', '-t', `=${session}:=status`)),
      20_000,
      'the status window',
    );

    fs.writeFileSync(gate, '');
    expect((await run).code).toBe(0);
    await eventually(
      () => windowNames(session).join(' ') === 'status',
      20_000,
      'the windows of the ended sessions to close',
    );
    // Asked again, it finds the session it made.
    const again = execFileSync(process.execPath, [RALPH_BIN, '-C', root, 'watch', '--detach'], {
      env: { ...process.env, TMUX_TMPDIR: tmuxDir, TMUX: '' },
      encoding: 'utf8',
    });
    expect(again).toContain(session);
    expect(tmux('list-sessions', '-F', '#{session_name}').trim()).toBe(session);
  });

  it('says so and exits when tmux is not installed', async () => {
    const { root } = await guardedWorkspace();
    const result = await ralph(root, ['watch'], { PATH: '/nonexistent' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ralph watch runs in tmux, which is not installed here');
  });
});
