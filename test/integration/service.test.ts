// Unattended on a server: `ralph service` writes a systemd unit that runs the workspace's
// `ralph run` (checked by systemd-analyze where the machine has it; systemctl and journalctl are
// fakes on PATH that record their calls, as the suite's machines run no systemd), and a run
// holds a sleep inhibitor (a fake systemd-inhibit) while its sessions run, released after.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Awake } from '../../src/control/awake.js';
import { unitText } from '../../src/cli/service-unit.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, tempDir } from '../support/workspace.js';

/** A node script on PATH under `name` that records its arguments, then runs `then`. */
function fake(dir: string, name: string, ledger: string, then = ''): void {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `#!/usr/bin/env node
const fs = require('fs');
fs.appendFileSync(${JSON.stringify(ledger)}, ${JSON.stringify(name)} + ' ' + process.argv.slice(2).join(' ') + '\\n');
${then}
`,
    { mode: 0o755 },
  );
}

const lines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];

/** systemd-analyze, where this machine has it: its word on a unit file. */
function verify(file: string): { ran: boolean; code: number | null; output: string } {
  const ran = spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8' });
  if (ran.error !== undefined) return { ran: false, code: null, output: '' };
  return { ran: true, code: ran.status, output: `${ran.stdout}${ran.stderr}`.trim() };
}

describe('ralph as a service', () => {
  it('installs a unit that runs the workspace, restarted after a failure only, and says what keeps it past a logout', async () => {
    const root = await makeWorkspace();
    const home = await tempDir('ralph-home-');
    const bin = await tempDir('ralph-fake-systemd-');
    const ledger = path.join(bin, 'calls');
    fake(
      bin,
      'systemctl',
      ledger,
      `if (process.argv.includes('status')) console.log('Active: active (running)');`,
    );
    fake(bin, 'journalctl', ledger, `console.log('ralph[1]: run_started');`);
    const env = { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` };

    const install = await ralph(root, ['service', 'install'], env);
    expect(install.code, install.stderr).toBe(0);
    const dir = path.join(home, '.config', 'systemd', 'user');
    const [name] = fs.readdirSync(dir);
    expect(name).toMatch(/^ralph-[A-Za-z0-9_.-]+-[0-9a-f]{8}\.service$/);
    const file = path.join(dir, name ?? '');
    const unit = fs.readFileSync(file, 'utf8');
    expect(unit).toContain(`ExecStart="${process.execPath}" "`);
    expect(unit).toContain(`"-C" "${root}" "run"`);
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain(`EnvironmentFile=-${path.join(root, 'service.env')}`);
    // Not restarted after a usage error, a held workspace, state to look at, or a pause.
    expect(unit).toContain('RestartPreventExitStatus=2 3 4 6');
    expect(unit).toContain('KillSignal=SIGTERM');
    expect(unit).toContain('WantedBy=default.target');
    expect(unit).not.toContain('User=');
    expect(lines(ledger)).toEqual([
      'systemctl --user daemon-reload',
      `systemctl --user enable --now ${name}`,
    ]);
    expect(install.stdout).toContain(`Started ${name}`);
    expect(install.stdout).toContain('loginctl enable-linger');
    const checked = verify(file);
    if (checked.ran) {
      expect(checked.code, checked.output).toBe(0);
      expect(checked.output).toBe('');
    }

    expect((await ralph(root, ['service', 'status'], env)).stdout).toContain('active (running)');
    expect((await ralph(root, ['service', 'logs'], env)).stdout).toContain('run_started');
    const uninstall = await ralph(root, ['service', 'uninstall'], env);
    expect(uninstall.code).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    expect(lines(ledger).slice(-2)).toEqual([
      `systemctl --user disable --now ${name}`,
      'systemctl --user daemon-reload',
    ]);
  });

  it('says what to run where systemd does not answer, and a system unit names a user that is not root', async () => {
    const root = await makeWorkspace();
    const home = await tempDir('ralph-home-');
    const bin = await tempDir('ralph-fake-systemd-');
    fake(
      bin,
      'systemctl',
      path.join(bin, 'calls'),
      `console.error('System has not been booted with systemd as init system (PID 1). Cannot operate.'); process.exit(1);`,
    );
    const env = { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` };
    // The unit written is not a unit installed: the exit says so (69), as status's does.
    const install = await ralph(root, ['service', 'install', '--no-start'], env);
    expect(install.code).toBe(69);
    expect(install.stdout).toContain('systemd did not take it');
    expect(install.stdout).toMatch(/ {2}systemctl --user enable ralph-.*\.service/);
    const status = await ralph(root, ['service', 'status'], env);
    expect(status.code).toBe(69);

    const rootless = await ralph(root, ['service', 'install', '--system'], env);
    expect(rootless.code).toBe(2);
    expect(rootless.stderr).toContain('never root: give --as <user>');
    // A % in a path is doubled, or systemd would read it as a specifier.
    expect(
      unitText({
        root: '/srv/100%night',
        scope: { kind: 'user' },
        node: '/usr/bin/node',
        bin: '/opt/ralph/dist/bin.js',
        path: '/usr/bin',
        killGraceSeconds: 5,
      }),
    ).toContain('WorkingDirectory=/srv/100%%night');
    const system = unitText({
      root,
      scope: { kind: 'system', user: 'night' },
      node: process.execPath,
      bin: '/opt/ralph/dist/bin.js',
      path: '/usr/bin:/bin',
      killGraceSeconds: 5,
    });
    expect(system).toContain('User=night');
    expect(system).toContain('WantedBy=multi-user.target');
    const file = path.join(await tempDir('ralph-unit-'), 'ralph-night-0123abcd.service');
    fs.writeFileSync(file, system.replace('/opt/ralph/dist/bin.js', process.execPath));
    const checked = verify(file);
    if (checked.ran) expect(checked.code, checked.output).toBe(0);
  });
});

describe('a night keeps the machine awake', () => {
  it('holds a sleep inhibitor while its sessions run and releases it after', async () => {
    const bin = await tempDir('ralph-fake-inhibit-');
    const ledger = path.join(bin, 'calls');
    fake(
      bin,
      'systemd-inhibit',
      ledger,
      `const end = () => { fs.appendFileSync(${JSON.stringify(ledger)}, 'released ' + Date.now() + '\\n'); process.exit(0); };
fs.appendFileSync(${JSON.stringify(ledger)}, 'taken ' + Date.now() + '\\n');
process.on('SIGTERM', end);
process.stdin.on('end', end);
process.stdin.resume();`,
    );
    const root = await makeWorkspace({
      clis: { claude: { command: [FAKE_CLAUDE] } },
      run: { keepAwake: true, pollInterval: 0.2 },
    });
    for (const id of ['a', 'b'])
      await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', '#behave: work ms=200']);
    const run = await ralph(root, ['run', '--drain'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
    expect(run.code, run.stderr).toBe(0);
    const calls = lines(ledger);
    // Taken once for both items (the next item takes it over), then released.
    expect(calls[0]).toBe(
      'systemd-inhibit --what=sleep:idle --who=ralph --why=agents are at work --mode=block cat',
    );
    const at = (word: string) => Number(calls.find((c) => c.startsWith(word))?.split(' ')[1]);
    expect(calls.filter((c) => c.startsWith('taken'))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('released'))).toHaveLength(1);
    const log = fs
      .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; time: string });
    const times = (event: string) =>
      log.filter((e) => e.event === event).map((e) => Date.parse(e.time));
    expect(at('taken')).toBeLessThan(Math.min(...times('session_ended')));
    expect(at('released')).toBeGreaterThanOrEqual(Math.max(...times('session_ended')));
  });

  it('goes on without one, and says so', async () => {
    const problems: string[] = [];
    const awake = Awake.start(true, { PATH: '/nonexistent' }, (p) => problems.push(p));
    awake.keep()();
    awake.close();
    expect(problems).toEqual([
      'systemd-inhibit is not on PATH: the machine may suspend while agents work',
    ]);
    const bin = await tempDir('ralph-fake-inhibit-');
    fake(
      bin,
      'systemd-inhibit',
      path.join(bin, 'calls'),
      `console.error('Failed to connect to bus: No such file or directory'); process.exit(1);`,
    );
    const refused = await new Promise<string>((resolve) => {
      const held = Awake.start(true, { PATH: `${bin}:${process.env.PATH ?? ''}` }, resolve);
      held.keep();
    });
    expect(refused).toContain('systemd-inhibit refused (exit 1: Failed to connect to bus');
  });
});
