import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { TEST_RUN_MARKER } from './leak-check.js';
import { RALPH_BIN } from './workspace.js';

/** A `ralph serve` child on an ephemeral 127.0.0.1 port. */
export interface Served {
  base: string;
  port: number;
  token: string;
  /** The address printed to open the dashboard (with the token). */
  openUrl: string;
  child: ChildProcess;
  /** What the server wrote to stderr so far (it says why it failed, if it did). */
  stderr(): string;
  stop(): Promise<void>;
}

const running = new Set<Served>();

/** Starts `ralph serve --port 0 …` for a workspace and waits for its address. */
export async function startServe(
  root: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<Served> {
  const child = spawn(process.execPath, [RALPH_BIN, '-C', root, 'serve', '--port', '0', ...args], {
    env: { PATH: process.env.PATH, [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const openUrl = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /open (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`ralph serve exited ${code}: ${stderr}`)));
  });
  const url = new URL(openUrl);
  const served: Served = {
    base: `${url.protocol}//${url.host}`,
    port: Number(url.port),
    token: url.searchParams.get('token') ?? '',
    openUrl,
    child,
    stderr: () => stderr,
    stop: async () => {
      running.delete(served);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
  running.add(served);
  return served;
}

/** Stops every server a test file started (call in afterEach). */
export async function stopServers(): Promise<void> {
  await Promise.all([...running].map((served) => served.stop()));
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => unknown;
}

/** One HTTP request to a server, with its token unless `headers.authorization` says otherwise. */
export function request(
  served: Served,
  method: string,
  route: string,
  options: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<Reply> {
  const payload =
    options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${served.base}${route}`,
      {
        method,
        headers: {
          authorization: `Bearer ${served.token}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body) as unknown,
          });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A client of an SSE route: the events so far, and a way to wait for more. */
export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  private waiters: (() => void)[] = [];
  private req: http.ClientRequest | undefined;
  ended = false;

  private constructor() {}

  static open(served: Served, route: string, lastEventId?: string): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      client.req = http.get(
        `${served.base}${route}`,
        {
          headers: {
            authorization: `Bearer ${served.token}`,
            accept: 'text/event-stream',
            ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
          },
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`${route}: ${res.statusCode}`));
            return;
          }
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
              client.take(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
            }
          });
          res.on('end', () => {
            client.ended = true;
            client.wake();
          });
          resolve(client);
        },
      );
      client.req.on('error', (error) => {
        client.ended = true;
        client.wake();
        reject(error);
      });
    });
  }

  private take(frame: string): void {
    const event: SseEvent = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith(':')) this.comments++;
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('event: ')) event.event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length === 0 && event.id === undefined) {
      this.wake();
      return;
    }
    event.data = data.join('\n');
    this.events.push(event);
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Waits until `ready` holds of the events (or fails after `timeoutMs`). */
  async until(
    ready: (events: SseEvent[]) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready(this.events)) {
      if (this.ended) throw new Error(`the stream ended before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Events with an id (runner entries and stream lines), as parsed data. */
  identified(): { id: string; event: string; data: Record<string, unknown> }[] {
    return this.events
      .filter((e) => e.id !== undefined)
      .map((e) => ({
        id: e.id as string,
        event: e.event,
        data: JSON.parse(e.data) as Record<string, unknown>,
      }));
  }

  close(): void {
    this.req?.destroy();
  }
}

/** Reads a workspace's state file. */
export function stateFile(root: string, name: string): string {
  return path.join(root, 'state', name);
}

export const exists = (file: string) => fs.existsSync(file);
