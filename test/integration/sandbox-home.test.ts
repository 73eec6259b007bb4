// The sandbox gives what the agent's program needs, never HOME: a command in HOME, in ~/.bin,
// in ~/.local/bin, in a node_modules/.bin or through a link reads none of the secrets planted
// there; a program beside the workspace runs (its folder is not laid over the workspace); a
// sandbox that cannot be made spends no attempt and pauses the night with the reason, and
// `ralph doctor` finds it first, by starting each CLI inside as a night will.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedWorkspace, logEvents } from '../support/guarded.js';
import { TEST_RUN_MARKER } from '../support/leak-check.js';
import {
  FAKE_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  tempDir,
} from '../support/workspace.js';

/** A HOME with secrets planted where an agent must never read them. */
async function plantedHome(): Promise<{ home: string; secrets: string[] }> {
  const home = await tempDir('ralph-home-');
  const secrets = [path.join(home, '.ssh', 'id_test'), path.join(home, '.aws', 'credentials')];
  for (const file of secrets) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, 'PLANTED-SECRET\n', { mode: 0o600 });
  }
  // A package.json in HOME must not make HOME a package to give whole.
  fs.writeFileSync(path.join(home, 'package.json'), '{}');
  return { home, secrets };
}

/** The fake claude, copied to `file` (it imports nothing of its own). */
function placeAgent(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(FAKE_CLAUDE, file);
  fs.chmodSync(file, 0o755);
}

type Placement = (home: string) => { command: string[]; pathDirs: string[] };

const PLACEMENTS: [string, Placement][] = [
  [
    'in HOME',
    (home) => (
      placeAgent(path.join(home, 'claude')),
      { command: [path.join(home, 'claude')], pathDirs: [] }
    ),
  ],
  [
    'in ~/.bin',
    (home) => (
      placeAgent(path.join(home, '.bin', 'claude')),
      { command: ['claude'], pathDirs: [path.join(home, '.bin')] }
    ),
  ],
  [
    'in ~/.local/bin',
    (home) => (
      placeAgent(path.join(home, '.local', 'bin', 'claude')),
      { command: ['claude'], pathDirs: [path.join(home, '.local', 'bin')] }
    ),
  ],
  [
    'in a node_modules/.bin',
    (home) => {
      const modules = path.join(home, 'tools', 'node_modules');
      placeAgent(path.join(modules, 'fake-claude', 'cli.mjs'));
      fs.writeFileSync(path.join(modules, 'fake-claude', 'package.json'), '{"name":"fake-claude"}');
      fs.mkdirSync(path.join(modules, '.bin'));
      fs.symlinkSync('../fake-claude/cli.mjs', path.join(modules, '.bin', 'claude'));
      return { command: ['claude'], pathDirs: [path.join(modules, '.bin')] };
    },
  ],
  [
    'through a symlink',
    (home) => {
      placeAgent(path.join(home, 'agents', 'claude.mjs'));
      fs.mkdirSync(path.join(home, 'links'));
      fs.symlinkSync(path.join(home, 'agents', 'claude.mjs'), path.join(home, 'links', 'claude'));
      return { command: [path.join(home, 'links', 'claude')], pathDirs: [] };
    },
  ],
];

describe('the sandbox and HOME', () => {
  it.each(PLACEMENTS)(
    'an agent whose command is %s reads no secret of HOME',
    async (_name, place) => {
      const { home, secrets } = await plantedHome();
      const { command, pathDirs } = place(home);
      const work = await tempDir('ralph-work-');
      const root = await makeWorkspace({
        sandbox: { kind: 'bwrap' },
        clis: { claude: { command } },
        run: { maxConsecutiveFailures: 0, failureBackoffCap: 0 },
      });
      const env = {
        HOME: home,
        PATH: [...pathDirs, process.env.PATH].join(path.delimiter),
        [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER] ?? '',
        FAKE_PROBE: JSON.stringify({
          read: [...secrets, path.join(root, 'ralph.config.json')],
          write: [path.join(root, 'state', 'queue.json')],
        }),
      };
      const body = '#behave: probe';
      await ralph(root, ['add', 'Probe', '--id', 'probe', '--work-dir', work, '--body', body], env);
      const run = await ralph(root, ['run', '--once'], env);
      expect(run.code, run.stderr).toBe(0);
      const seen = JSON.parse(fs.readFileSync(path.join(work, 'probe.json'), 'utf8')) as Record<
        string,
        { ok: boolean; code?: string }
      >;
      for (const file of secrets)
        expect(seen[`read ${file}`], file).toMatchObject({ ok: false, code: 'ENOENT' });
      // The workspace's configuration and state are out of the agent's reach too.
      expect(seen[`read ${path.join(root, 'ralph.config.json')}`]).toMatchObject({ ok: false });
      expect(seen[`write ${path.join(root, 'state', 'queue.json')}`]).toMatchObject({ ok: false });
      expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
    },
  );

  it('runs an agent whose program sits in the folder above the workspace', async () => {
    const d = await tempDir('ralph-above-');
    placeAgent(path.join(d, 'claude'));
    fs.mkdirSync(path.join(d, 'work'));
    const root = await makeWorkspace(
      { sandbox: { kind: 'bwrap' }, clis: { claude: { command: [path.join(d, 'claude')] } } },
      path.join(d, 'ws'),
    );
    const env = { [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER] ?? '' };
    const doctor = await ralph(root, ['doctor'], env);
    expect(doctor.stdout).toMatch(/ok {4}in-sandbox +claude starts in ralph's sandbox/);
    await ralph(
      root,
      ['add', 'x', '--id', 'x', '--work-dir', path.join(d, 'work'), '--max-attempts', '1'],
      env,
    );
    const run = await ralph(root, ['run', '--once'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });
});

/** A bubblewrap that makes the probe's sandbox but no other, saying why as bubblewrap does. */
async function brokenBubblewrap(): Promise<string> {
  const file = path.join(await tempDir('ralph-bwrap-'), 'bwrap');
  fs.writeFileSync(
    file,
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = -MSocket ] && exec bwrap "$@"; done\necho "bwrap: Can't create file at /ws/state/interrupt-request.txt: Read-only file system" >&2\nexit 1\n`,
    { mode: 0o755 },
  );
  return file;
}

describe('a sandbox that cannot be set up', () => {
  it('spends no attempt, pauses the night with the reason, and doctor finds it before', async () => {
    const { root, env } = await guardedWorkspace({ sandbox: { kind: 'bwrap' } });
    const broken = { ...env, RALPH_BWRAP: await brokenBubblewrap() };
    const doctor = await ralph(root, ['doctor'], broken);
    expect(doctor.code).not.toBe(0);
    expect(doctor.stdout).toMatch(
      /FAIL {2}in-sandbox +claude cannot start in ralph's sandbox \(.*Read-only file system/,
    );
    await ralph(root, ['add', 'One', '--id', 'one', '--work-dir', await tempDir()], broken);
    const run = await ralph(root, ['run', '--drain'], broken);
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(
      /the night is paused: ralph's sandbox could not be set up \(bwrap: Can't create file/,
    );
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect(readSessions(root)[0]).toMatchObject({ outcome: { kind: 'sandbox_failed' } });
    expect(logEvents(root).filter((e) => e.event === 'session_started')).toHaveLength(1);
  });
});

describe('a fallback CLI that cannot run in the sandbox', () => {
  it('is said by doctor, run --dry-run and the run, which it stops, never skipped in silence', async () => {
    // codex's read-only mode is its own sandbox, which cannot run inside ralph's.
    const { root, env } = await guardedWorkspace({
      sandbox: { kind: 'bwrap' },
      defaults: { permissionMode: 'plan', fallback: { clis: ['codex'] } },
      clis: { codex: { command: ['node'] } },
    });
    await ralph(root, ['add', 'One', '--id', 'one', '--work-dir', await tempDir()], env);
    const said =
      /the fallback CLI codex \(defaults\.fallback\) cannot run in ralph's sandbox: codex reads only/;
    const doctor = await ralph(root, ['doctor'], env);
    expect(doctor.stdout).toMatch(new RegExp(`^FAIL +fallback +${said.source}`, 'm'));
    expect((await ralph(root, ['run', '--dry-run'], env)).stdout).toMatch(said);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(said);
  });
});
