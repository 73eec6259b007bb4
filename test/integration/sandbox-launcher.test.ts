// ralph's launcher (src/sandbox/launcher.pl) on its own, in a network namespace of its own as in
// the sandbox: the agent's exit status and signals passed on, and the bridge from the sandbox's
// loopback to the proxy's unix socket, plain and through a CONNECT.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/workspace.js';

const LAUNCHER = fileURLToPath(new URL('../../src/sandbox/launcher.pl', import.meta.url));

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The launcher in a bubblewrap without network, `dir` bound in; SIGINT and SIGTERM ignored. */
function launch(dir: string, launcherArgs: string[], onStdout?: (text: string) => void) {
  const child = spawn(
    'env',
    [
      '--ignore-signal=INT',
      '--ignore-signal=TERM',
      'bwrap',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--bind',
      dir,
      dir,
      '--unshare-net',
      '--die-with-parent',
      '/usr/bin/perl',
      LAUNCHER,
      ...launcherArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    onStdout?.(stdout);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise<Ended>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, ended };
}

/** A node program run by the launcher: `node -e <code>`. */
const nodeRunning = (code: string) => ['--', process.execPath, '-e', code];

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/**
 * A stand-in for ralph's proxy on a unix socket: a CONNECT to an allowed target is answered
 * 200 (with a first byte of the tunnel in the same write); any other CONNECT 403; plain bytes
 * are echoed upper-cased, and the end of its client's input answered by "<end>" and its own end.
 * Returns what it heard.
 */
async function fakeProxy(socket: string, allowed: string): Promise<string[]> {
  const heard: string[] = [];
  const server = net.createServer((client) => {
    let buffered = '';
    let tunnel = false;
    client.setEncoding('utf8');
    client.on('data', (text: string) => {
      buffered += text;
      if (!tunnel && buffered.startsWith('CONNECT ')) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const target = buffered.slice('CONNECT '.length, buffered.indexOf(' ', 8));
        heard.push(`CONNECT ${target}`);
        if (target !== allowed) {
          client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
          return;
        }
        tunnel = true;
        buffered = buffered.slice(end + 4);
        client.write('HTTP/1.1 200 Connection established\r\n\r\n>');
      }
      if (buffered !== '' && !buffered.startsWith('CONNECT ')) {
        heard.push(buffered);
        client.write(buffered.toUpperCase());
        buffered = '';
      }
    });
    client.on('end', () => {
      if (client.writable) client.end('<end>');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return heard;
}

/** Connects to `port` inside, writes `text`, ends its side, prints all it got back. */
const clientCode = (port: number, text: string) => `
  const socket = require('node:net').connect(${port}, '127.0.0.1');
  let got = '';
  socket.setEncoding('utf8').on('data', (t) => (got += t));
  socket.on('error', (e) => { console.log('error ' + e.code); });
  socket.on('close', () => console.log(JSON.stringify(got)));
  socket.end(${JSON.stringify(text)});
`;

describe("ralph's sandbox launcher", () => {
  it("passes on the agent's exit status, and says when it cannot start the agent", async () => {
    const dir = await tempDir('ralph-launcher-');
    expect((await launch(dir, nodeRunning('process.exit(7)')).ended).code).toBe(7);
    const missing = await launch(dir, ['--', path.join(dir, 'no-such-agent')]).ended;
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain(
      `ralph sandbox: cannot start ${path.join(dir, 'no-such-agent')}`,
    );
    const refused = await launch(dir, ['--bogus', 'x', '--', 'true']).ended;
    expect(refused.code).toBe(125);
    expect(refused.stderr).toContain('unknown argument --bogus');
  });

  it('gives the agent the default handling of a stop sent to the whole group, and outlives it', async () => {
    const dir = await tempDir('ralph-launcher-');
    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const { child, ended } = launch(
      dir,
      nodeRunning('console.log("ready"); setInterval(() => {}, 1000)'),
      (text) => text.includes('ready') && started(),
    );
    await ready;
    process.kill(-child.pid!, 'SIGTERM');
    expect((await ended).code).toBe(128 + 15);
  });

  /**
   * A launcher bridging its port 3128 to a fake proxy that lets `allowed` through, and 8080 to
   * 127.0.0.1:8080 by a CONNECT: what the proxy heard, and a client's run inside.
   */
  async function bridge(allowed: string) {
    const dir = await tempDir('ralph-launcher-');
    const socket = path.join(dir, 'egress.sock');
    const heard = await fakeProxy(socket, allowed);
    const args = ['--socket', socket, '--port', '3128', '--forward', '127.0.0.1:8080'];
    const client = (port: number, text: string) =>
      launch(dir, [...args, ...nodeRunning(clientCode(port, text))]).ended;
    return { heard, client, socket };
  }

  it("carries the sandbox's loopback to the proxy's socket, as it is and through a CONNECT", async () => {
    const { heard, client } = await bridge('127.0.0.1:8080');
    const plain = await client(3128, 'hello');
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout.trim())).toBe('HELLO<end>');
    const forwarded = await client(8080, 'api');
    expect(JSON.parse(forwarded.stdout.trim())).toBe('>API<end>');
    expect(heard).toEqual(['hello', 'CONNECT 127.0.0.1:8080', 'api']);
  });

  it('closes a forwarded connection the proxy refuses, and listens nowhere it was not asked to', async () => {
    const { heard, client, socket } = await bridge('somewhere-else:1');
    const refused = await client(8080, 'api');
    // Closed with nothing carried (a reset, when the client's bytes were left unread).
    expect(refused.stdout.trim().split('\n').at(-1)).toBe('""');
    expect(heard).toEqual(['CONNECT 127.0.0.1:8080']);
    const nowhere = await client(9999, 'x');
    expect(nowhere.stdout).toContain('error ECONNREFUSED');
    expect(fs.existsSync(socket)).toBe(true);
  });
});
