import path from 'node:path';
import { createHash } from 'node:crypto';
import { ExitCode } from '../lib/exit-codes.js';

/** Where a unit is installed and how systemd is asked about it: the person's, or the system's. */
export interface UnitScope {
  kind: 'user' | 'system';
  /** The system unit's `User=`: whom the runner runs as (never root by accident). */
  user?: string;
}

/** What a unit runs: the workspace, and the node and ralph that run it. */
export interface UnitRequest {
  root: string;
  scope: UnitScope;
  node: string;
  bin: string;
  /** The PATH the runner gets: the installer's, so the agent CLIs it found are found again. */
  path: string;
  /** Seconds ralph gives a session to end after SIGTERM: systemd waits longer than that. */
  killGraceSeconds: number;
}

/**
 * Exit codes a restart cannot help: a wrong command line, a workspace another runner holds,
 * state a person must look at, a paused night. Anything else (a crash, the queue's database
 * unreachable, a wedged runner) is restarted.
 */
const NOT_RESTARTED = [
  ExitCode.usage,
  ExitCode.locked,
  ExitCode.corruptState,
  ExitCode.paused,
] as const;

/** The optional file of variables the unit gives the runner, in the workspace. */
export const SERVICE_ENV_FILE = 'service.env';

/** The unit's name: one per workspace, readable, and the same each time for the same root. */
export function unitName(root: string): string {
  const slug = path
    .basename(root)
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[-.]+/, '');
  const hash = createHash('sha256').update(root).digest('hex').slice(0, 8);
  return `ralph-${slug === '' ? 'workspace' : slug}-${hash}.service`;
}

/** Where the unit file goes. */
export function unitFile(name: string, scope: UnitScope, home: string): string {
  return scope.kind === 'user'
    ? path.join(home, '.config', 'systemd', 'user', name)
    : path.join('/etc/systemd/system', name);
}

/** A value systemd takes as it is: a `%` would be a specifier (`%h`), so it is doubled. */
const literal = (value: string) => value.replace(/%/g, '%%');

/** A value systemd reads as one word: quoted, its quotes and backslashes escaped. */
const quoted = (value: string) => `"${literal(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * The unit: `ralph run` for the workspace, restarted after a failure (not after a clean end or a
 * pause), its output in the journal as well as the workspace's own iteration log, stopped with
 * a SIGTERM that ralph turns into a graceful end of its sessions.
 */
export function unitText(request: UnitRequest): string {
  const { root, scope } = request;
  const lines = [
    '# Written by `ralph service install`; `ralph service uninstall` removes it.',
    '[Unit]',
    `Description=ralph: the queue of the workspace ${literal(root)}`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    ...(scope.kind === 'system' && scope.user !== undefined ? [`User=${scope.user}`] : []),
    `WorkingDirectory=${literal(root)}`,
    `Environment=${quoted(`PATH=${request.path}`)}`,
    // The runner's keys and settings (ANTHROPIC_API_KEY, CLAUDE_CONFIG_DIR): not the shell's.
    `EnvironmentFile=-${literal(path.join(root, SERVICE_ENV_FILE))}`,
    `ExecStart=${[request.node, request.bin, '-C', root, 'run'].map(quoted).join(' ')}`,
    'Restart=on-failure',
    'RestartSec=30',
    `RestartPreventExitStatus=${NOT_RESTARTED.join(' ')}`,
    // ralph ends its sessions itself on SIGTERM, then its own group: systemd waits for it.
    'KillMode=mixed',
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${request.killGraceSeconds + 60}`,
    'StandardOutput=journal',
    'StandardError=journal',
    '',
    '[Install]',
    `WantedBy=${scope.kind === 'user' ? 'default.target' : 'multi-user.target'}`,
    '',
  ];
  return lines.join('\n');
}
