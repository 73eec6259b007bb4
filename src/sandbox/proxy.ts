import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isAllowed, type AllowedHost } from './hosts.js';

/** A connection the proxy refused: where the sandboxed process tried to go, and when. */
export interface EgressRefusal {
  host: string;
  port: number;
  at: string;
}

/** One sandbox's way out: the unix socket bound into it (its directory is 0700), until closed. */
export interface EgressDoor {
  socket: string;
  close(): Promise<void>;
}

/** The most a request's head may hold before the proxy gives up on it. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * ralph's egress proxy, one per runner: each sandbox gets a door of its own (a unix socket in a
 * private directory) that lets through only its allowed hosts and reports every refusal. It
 * speaks HTTP's proxy protocol: CONNECT for TLS (and for the launcher's loopback forwards),
 * an absolute URL for plain HTTP (one request per connection).
 */
export class EgressProxy {
  private dir?: Promise<string>;
  private readonly doors = new Set<EgressDoor>();
  /** Doors are numbered: a unix socket's path must stay short (108 bytes), whatever TMPDIR is. */
  private opened = 0;

  constructor(private readonly now: () => string = () => new Date().toISOString()) {}

  /** Opens a door for `allowed`; `onRefused` hears each refusal. */
  async open(
    allowed: readonly AllowedHost[],
    onRefused: (refusal: EgressRefusal) => void,
  ): Promise<EgressDoor> {
    this.dir ??= fsp.mkdtemp(path.join(os.tmpdir(), 'ralph-egress-'));
    const socket = path.join(await this.dir, `${++this.opened}.sock`);
    const open = new Set<net.Socket>();
    const server = net.createServer((client) => {
      open.add(client);
      client.once('close', () => open.delete(client));
      serve(client, allowed, (host, port) => onRefused({ host, port, at: this.now() }), open);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
    const door: EgressDoor = {
      socket,
      close: async () => {
        if (!this.doors.delete(door)) return;
        for (const connection of open) connection.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await fsp.rm(socket, { force: true });
      },
    };
    this.doors.add(door);
    return door;
  }

  /** Closes every door and removes the directory. */
  async close(): Promise<void> {
    await Promise.all([...this.doors].map((door) => door.close()));
    if (this.dir !== undefined) await fsp.rm(await this.dir, { recursive: true, force: true });
  }
}

/** Where a request asks to go, and what to send there first. */
interface ProxyTarget {
  host: string;
  port: number;
  /** CONNECT: nothing (the tunnel opens); plain HTTP: the request, rewritten for the origin. */
  head?: Buffer;
}

function parseTarget(head: string): ProxyTarget | undefined {
  const lines = head.split('\r\n');
  const [method, target, version] = (lines[0] ?? '').split(' ');
  if (method === undefined || target === undefined || version === undefined) return undefined;
  if (method === 'CONNECT') {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
    if (match === null) return undefined;
    return { host: (match[1] ?? '').replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:') return undefined;
  // One request a connection: the next could be for another host.
  const headers = lines
    .slice(1)
    .filter(
      (line) => line !== '' && !/^(proxy-connection|proxy-authorization|connection):/i.test(line),
    );
  const rewritten = [
    `${method} ${url.pathname}${url.search} ${version}`,
    ...headers,
    'Connection: close',
  ];
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 80 : Number(url.port),
    head: Buffer.from(`${rewritten.join('\r\n')}\r\n\r\n`, 'latin1'),
  };
}

function reply(client: net.Socket, status: string, text: string): void {
  client.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

function serve(
  client: net.Socket,
  allowed: readonly AllowedHost[],
  refused: (host: string, port: number) => void,
  open: Set<net.Socket>,
): void {
  let buffered = Buffer.alloc(0);
  client.on('error', () => client.destroy());
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1) {
      if (buffered.length > MAX_HEAD_BYTES)
        reply(client, '431 Request Header Fields Too Large', '');
      return;
    }
    client.off('data', onData);
    client.pause();
    const target = parseTarget(buffered.subarray(0, end).toString('latin1'));
    const rest = buffered.subarray(end + 4);
    if (target === undefined) {
      reply(client, '400 Bad Request', 'ralph sandbox proxy: not a proxy request\n');
      return;
    }
    if (!isAllowed(allowed, target.host, target.port)) {
      refused(target.host, target.port);
      reply(
        client,
        '403 Forbidden',
        `ralph sandbox: ${target.host}:${target.port} is not an allowed host (sandbox.allowHosts)\n`,
      );
      return;
    }
    const upstream = net.connect({ host: target.host, port: target.port });
    open.add(upstream);
    upstream.once('close', () => open.delete(upstream));
    let connected = false;
    upstream.once('error', () => {
      if (!connected) reply(client, '502 Bad Gateway', 'ralph sandbox proxy: no connection\n');
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
    upstream.once('connect', () => {
      connected = true;
      if (target.head === undefined) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      else upstream.write(target.head);
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream).pipe(client);
      client.resume();
    });
  };
  client.on('data', onData);
}
