import { ExitCode } from '../../lib/exit-codes.js';
import { parseDuration } from '../../lib/duration.js';
import { InputError } from '../../lib/errors.js';
import { DEFAULT_PORT, startServer, type RunningServer } from '../../server/index.js';
import type { Workspace } from '../../config/workspace.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { signalExitCode, untilStopSignal } from '../signals.js';

export interface ServeFlags {
  host?: string;
  port?: string;
  readOnly?: boolean;
  token?: string;
  allowHost?: string[];
  publicOrigin?: string[];
  heartbeat?: string;
}

/** A port flag: 0 (any free port) to 65535. */
export function portFlag(flag: string, value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535))
    throw new InputError(`${flag}: expected a port from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

/** `--heartbeat`: how often an idle event stream gets a comment. */
function heartbeatFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = parseDuration(value);
  if (seconds === undefined || seconds < 0.05 || seconds > 3600)
    throw new InputError(
      `--heartbeat: expected a duration from 50ms to 1h (15s, 1m), got ${JSON.stringify(value)}`,
    );
  return seconds * 1000;
}

/** `run --serve [host:]port`: where the server inside the runner listens. */
export function parseServeAddress(value: string): { host: string; port: string } {
  const colon = value.lastIndexOf(':');
  if (colon === -1) return { host: '127.0.0.1', port: value };
  return { host: value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: value.slice(colon + 1) };
}

/** Starts the server for a workspace and tells the person where it is. */
export async function openServer(
  workspace: Workspace,
  flags: ServeFlags,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<RunningServer> {
  const host = flags.host ?? '127.0.0.1';
  const port = portFlag('--port', flags.port);
  const server = await startServer({
    workspace,
    host,
    port,
    readOnly: flags.readOnly === true,
    token:
      flags.token !== undefined
        ? { value: flags.token, from: '--token' }
        : env.RALPH_SERVE_TOKEN !== undefined
          ? { value: env.RALPH_SERVE_TOKEN, from: 'RALPH_SERVE_TOKEN' }
          : undefined,
    allowHosts: flags.allowHost ?? [],
    publicOrigins: flags.publicOrigin ?? [],
    heartbeatMs: heartbeatFlag(flags.heartbeat),
    env,
    onError: (message) => output.err(`ralph serve: ${message}`),
  });
  const bound = new URL(server.url).port;
  output.err(
    [
      `ralph serve: the dashboard of ${workspace.root}${flags.readOnly ? ' (read-only)' : ''}`,
      `  open ${server.openUrl}`,
      `  from another machine: ssh -L ${bound}:127.0.0.1:${bound} <this host>, then open the same address there`,
    ].join('\n'),
  );
  return server;
}

/** `ralph serve`: the HTTP API and dashboard until SIGINT or SIGTERM. */
export async function serveCommand(
  root: string,
  flags: ServeFlags,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const server = await openServer(workspace, flags, output, env);
  const signal = await untilStopSignal();
  await server.close();
  output.err(`ralph serve: stopped (${signal})`);
  return signal === 'SIGINT' || signal === 'SIGTERM' ? ExitCode.ok : signalExitCode(signal);
}
