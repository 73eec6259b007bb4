import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from '../../lib/command.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { RALPH_BIN } from '../../lib/package-files.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { unitFile, unitName, unitText, type UnitScope } from '../service-unit.js';

type Env = Readonly<Record<string, string | undefined>>;

/** `--system [--as <user>]`: a system unit running as that user; else the person's own unit. */
export interface ServiceOptions {
  system?: boolean;
  as?: string;
  /** Write the unit and stop: start it yourself (or on a machine without systemd). */
  start?: boolean;
}

/** The unit's scope; installing a system unit needs whom it runs as. */
const scopeOf = (options: ServiceOptions, env: Env, installing = false): UnitScope => {
  if (options.as !== undefined && options.system !== true)
    throw new InputError(
      'service: --as names the user of a system unit: give --system too',
      '--as',
    );
  if (options.system !== true) return { kind: 'user' };
  const user = options.as ?? env.SUDO_USER;
  if (!installing) return { kind: 'system', user };
  if (user === undefined || user === '' || user === 'root')
    throw new InputError(
      'service: a system unit runs ralph as a user of its own, never root: give --as <user>',
      '--as',
    );
  return { kind: 'system', user };
};

const scopeFlag = (scope: UnitScope) => (scope.kind === 'user' ? ['--user'] : []);

/** Runs a systemd tool; its output, and whether it worked (absent counts as not). */
async function systemd(
  argv: string[],
  env: Env,
): Promise<{ ok: boolean; code: number | null; text: string }> {
  const ran = await runCommand({
    argv,
    cwd: os.homedir(),
    env,
    timeoutMs: 60_000,
    killGraceMs: 2_000,
    maxOutputBytes: 1024 * 1024,
  });
  const text = ran.startError ?? `${ran.stdout}${ran.stderr}`.trimEnd();
  return { ok: ran.code === 0, code: ran.startError === undefined ? ran.code : null, text };
}

/**
 * `ralph service install`: writes the workspace's systemd unit (`ralph run`, restarted after a
 * failure, logged to the journal), then enables and starts it; where systemd cannot (a
 * container, no session bus), says what to run.
 */
export async function serviceInstallCommand(
  root: string,
  options: ServiceOptions,
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const scope = scopeOf(options, env, true);
  const name = unitName(workspace.root);
  const file = unitFile(name, scope, env.HOME ?? os.homedir());
  const text = unitText({
    root: workspace.root,
    scope,
    node: process.execPath,
    bin: RALPH_BIN,
    path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    killGraceSeconds: workspace.config.run.killGrace,
  });
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, text, { mode: 0o644 });
  output.out(`Wrote ${file}`);
  const flag = scopeFlag(scope);
  const steps = [
    ['systemctl', ...flag, 'daemon-reload'],
    ['systemctl', ...flag, 'enable', ...(options.start === false ? [] : ['--now']), name],
  ];
  for (const step of steps) {
    const ran = await systemd(step, env);
    if (!ran.ok) {
      output.out(
        `systemd did not take it (${step.join(' ')}: ${ran.text.split('\n')[0] ?? 'failed'}); on a machine that runs systemd, run:`,
      );
      for (const todo of steps) output.out(`  ${todo.join(' ')}`);
      output.out(afterLogout(scope));
      // The unit is written, not installed: a script that goes on would think it runs.
      return ExitCode.unavailable;
    }
  }
  output.out(
    options.start === false
      ? `Enabled ${name}: it starts at the next boot (or: systemctl ${flag.join(' ')} start ${name})`
      : `Started ${name}: ralph run for ${workspace.root}, restarted after a failure`,
  );
  output.out(afterLogout(scope));
  output.out(`Its state: ralph service status; its log: ralph service logs (or ralph watch)`);
  return ExitCode.ok;
}

/** What keeps a user unit running after its person logs out. */
function afterLogout(scope: UnitScope): string {
  return scope.kind === 'user'
    ? `A user unit stops when you log out: run "loginctl enable-linger ${os.userInfo().username}" once to keep it running (and starting at boot) without a login.`
    : 'A system unit runs from boot, whoever is logged in.';
}

/** `ralph service status|logs|uninstall`: systemd's word on the workspace's unit. */
export async function serviceCommand(
  root: string,
  action: 'status' | 'logs' | 'uninstall',
  options: ServiceOptions,
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const scope = scopeOf(options, env);
  const name = unitName(workspace.root);
  const file = unitFile(name, scope, env.HOME ?? os.homedir());
  const flag = scopeFlag(scope);
  if (action === 'uninstall') {
    const disabled = await systemd(['systemctl', ...flag, 'disable', '--now', name], env);
    if (!disabled.ok) output.out(`systemctl disable: ${disabled.text.split('\n')[0] ?? 'failed'}`);
    await fsp.rm(file, { force: true });
    await systemd(['systemctl', ...flag, 'daemon-reload'], env);
    output.out(`Removed ${file}`);
    return ExitCode.ok;
  }
  const argv =
    action === 'status'
      ? ['systemctl', ...flag, 'status', '--no-pager', name]
      : ['journalctl', ...flag, '--unit', name, '--lines', '200', '--no-pager'];
  const ran = await systemd(argv, env);
  if (ran.text !== '') output.out(ran.text);
  if (action === 'logs') return ran.ok ? ExitCode.ok : ExitCode.unavailable;
  // systemctl status answers an inactive unit with exit 3: an answer. No such unit (4), or no
  // systemd to ask, is none: systemd does not hold the unit.
  return ran.code === 0 || ran.code === 3 ? ExitCode.ok : ExitCode.unavailable;
}
