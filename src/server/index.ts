import os from 'node:os';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { processStartTime } from '../lib/procfs.js';
import { redactorFor } from '../agent/redaction.js';
import type { Workspace } from '../config/workspace.js';
import { removeServerInfo, writeServerInfo } from '../control/server-file.js';
import { InputError, RalphError, isErrnoException } from '../lib/errors.js';
import { DASHBOARD_ASSETS } from '../lib/package-files.js';
import { actionLog } from './action-log.js';
import { createApp } from './app.js';
import { Changes } from './changes.js';
import { openQueue } from '../queue/open.js';
import type { ServerContext } from './context.js';
import { allowedHosts } from './guard.js';
import { IndexCache } from './index-cache.js';
import { health } from './routes/night.js';
import { StatusFeed } from './status-feed.js';
import { MIN_TOKEN_LENGTH, loadToken } from './token.js';

export const DEFAULT_PORT = 7420;
const HEARTBEAT_MS = 15_000;

export interface ServeOptions {
  workspace: Workspace;
  host: string;
  /** 0 takes a free port. */
  port: number;
  readOnly: boolean;
  /** `--token` or RALPH_SERVE_TOKEN; the workspace's `state/serve-token` otherwise. */
  token?: { value: string; from: '--token' | 'RALPH_SERVE_TOKEN' };
  /** `--public-origin`: where a proxy (HTTPS) serves the dashboard to browsers. */
  publicOrigins: readonly string[];
  /** More `Host` names to answer to (a name the machine is reached by). */
  allowHosts: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  heartbeatMs?: number;
  /** Where a failure no request caused is reported (redacted). */
  onError: (message: string) => void;
}

export interface RunningServer {
  /** The address without the token. */
  url: string;
  /** The address that opens the dashboard: with the token, for the browser's first visit. */
  openUrl: string;
  close(): Promise<void>;
}

/** `--public-origin`: an http(s) origin, as browsers send it in `Origin`. */
function publicOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(
      `--public-origin: expected an address such as https://night.example.ts.net, got ${JSON.stringify(value)}`,
      '--public-origin',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InputError(
      `--public-origin: ${value} is not an http or https address`,
      '--public-origin',
    );
  return url.origin;
}

const isLoopback = (host: string) => host === '127.0.0.1' || host === '::1' || host === 'localhost';

/** Where the dashboard is reached, as a URL's host. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return os.hostname();
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts `ralph serve` for a workspace: the HTTP API, the event stream and the dashboard, on the
 * workspace's files and nothing else (it needs no runner, and outlives any).
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { workspace, host } = options;
  if (!isLoopback(host) && options.token === undefined)
    throw new RalphError(
      `${host}: a server others can reach needs a token of your choosing, at least ${MIN_TOKEN_LENGTH} characters: set RALPH_SERVE_TOKEN (ralph serve also takes --token; the generated one is in ${workspace.paths.state}/serve-token), or reach it through an SSH tunnel to 127.0.0.1`,
    );
  if (options.token !== undefined && options.token.value.length < MIN_TOKEN_LENGTH)
    throw new RalphError(
      `${options.token.from}: at least ${MIN_TOKEN_LENGTH} characters${options.token.value === '' ? ' (it is empty)' : ''}`,
    );
  const publicOrigins = new Set(options.publicOrigins.map(publicOrigin));
  const token = options.token?.value ?? (await loadToken(workspace.paths.state));
  const redactor = redactorFor(workspace, options.env);
  const changes = new Changes([workspace.paths.state, workspace.paths.sessions]);
  const queue = await openQueue(workspace, options.env);
  const state = { workspace, queue, redactor, readOnly: options.readOnly };
  const ctx: ServerContext = {
    ...state,
    changes,
    status: new StatusFeed(() => health(state), changes),
    index: new IndexCache(workspace.paths.sessions),
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    assets: DASHBOARD_ASSETS,
    logAction: actionLog(workspace, redactor),
  };
  const hosts = allowedHosts(
    host,
    [...options.allowHosts, ...[...publicOrigins].map((o) => new URL(o).hostname)],
    {
      name: os.hostname(),
      addresses: Object.values(os.networkInterfaces()).flatMap((list) =>
        (list ?? []).map((entry) => entry.address),
      ),
    },
  );
  const app = createApp(ctx, { token, hosts, publicOrigins }, (error) =>
    options.onError(
      redactor.redact(error instanceof Error ? (error.stack ?? error.message) : String(error)),
    ),
  );
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.on('clientError', answerClientError);
  const port = await listen(server, options.port, host).catch(async (error: unknown) => {
    changes.close();
    await queue.close();
    throw error;
  });
  const url = `http://${urlHost(host)}:${port}/`;
  await writeServerInfo(workspace.paths.state, {
    pid: process.pid,
    startTime: await processStartTime(process.pid),
    url,
    readOnly: options.readOnly,
    startedAt: new Date().toISOString(),
  });
  return {
    url,
    openUrl: `${url}?token=${encodeURIComponent(token)}`,
    close: async () => {
      changes.close();
      // Event streams never end by themselves: close their connections with the server.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.close();
      await removeServerInfo(workspace.paths.state, process.pid);
    },
  };
}

/**
 * A request Node refuses before the app sees it (headers over its limit, a malformed request):
 * answered with a JSON body that says why, like every other refusal, instead of an empty one.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
      : [400, 'Bad Request', 'the request is not valid HTTP'];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      if (isErrnoException(error) && error.code === 'EADDRINUSE')
        reject(
          new RalphError(`${host}:${port} is in use: give another --port (0 takes a free one)`),
        );
      else if (isErrnoException(error) && error.code === 'EADDRNOTAVAIL')
        reject(new RalphError(`--host ${host}: not an address of this machine`));
      else reject(error);
    });
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}
