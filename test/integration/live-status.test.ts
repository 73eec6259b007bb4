// The live status line as a person sees it: `ralph run` in a real terminal (tmux), the screen
// read back with capture-pane.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { eventually } from '../support/wait.js';
import { RALPH_BIN, ralph } from '../support/workspace.js';

const tmuxSession = `ralph-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', tmuxSession);
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

afterEach(() => {
  try {
    tmux('kill-session', '-t', tmuxSession);
  } catch {
    // Already gone.
  }
});

describe('ralph run on a terminal', () => {
  it('keeps one status line at the bottom while events scroll above it', async () => {
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'gate');
    await ralph(
      root,
      ['add', 'Gated', '--id', 'gated', '--body', `#behave: gated gate=${gate}`],
      env,
    );
    await ralph(root, ['add', 'After', '--id', 'after'], env);
    const vars = Object.entries({ ...env, PATH: process.env.PATH ?? '' }).map(
      ([k, v]) => `${k}=${shellWord(v)}`,
    );
    const command = `env ${vars.join(' ')} ${shellWord(process.execPath)} ${shellWord(RALPH_BIN)} -C ${shellWord(root)} run --drain; sleep 600`;
    tmux('new-session', '-d', '-s', tmuxSession, '-x', '120', '-y', '20', command);

    await eventually(
      async () => Promise.resolve(/^▶ item 1 of 2: gated · /m.test(screen())),
      15_000,
      'the status line',
    );
    let lines = screen()
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.filter((l) => l.startsWith('▶'))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(
      /^▶ item 1 of 2: gated · \d+(\.\d)?s · (starting|no tool call yet|last: .*) · \$0\.\d{4} \(run \$0\.\d\d\)$/,
    );
    expect(lines.some((l) => /session started: gated \(attempt 1\)/.test(l))).toBe(true);

    fs.writeFileSync(gate, '');
    await eventually(
      async () => Promise.resolve(screen().includes('run finished')),
      15_000,
      'the end of the run',
    );
    lines = screen()
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.filter((l) => l.startsWith('▶'))).toEqual([]);
    expect(lines.some((l) => /session ended: gated: success/.test(l))).toBe(true);
    expect(lines.some((l) => /session ended: after: success/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('{'))).toBe(false);
  });
});
