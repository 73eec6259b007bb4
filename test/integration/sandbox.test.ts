// The bubblewrap sandbox: the work dir alone writable, $HOME empty, its own processes, no
// network but ralph's proxy to the allowed hosts; every refusal in the session's record.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedWorkspace, logEvents } from '../support/guarded.js';
import { TEST_RUN_MARKER } from '../support/leak-check.js';
import { ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A listener on 127.0.0.1 outside the sandbox, answering `hello from <name>`. */
async function listener(name: string): Promise<number> {
  const server = http.createServer((_req, res) => res.end(`hello from ${name}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** A HOME with a key planted where an agent must never read it. */
async function homeWithKey(): Promise<{ home: string; key: string }> {
  const home = await tempDir('ralph-home-');
  const key = path.join(home, '.ssh', 'id_ed25519');
  fs.mkdirSync(path.dirname(key), { mode: 0o700 });
  fs.writeFileSync(key, 'PLANTED-PRIVATE-KEY\n', { mode: 0o600 });
  return { home, key };
}

/** A process of the test's own, outside every sandbox. */
function bystander(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  closers.push(() => child.kill('SIGKILL'));
  return child.pid as number;
}

/** The fake gate: what it can read and reach from inside, into gate.json in its work dir. */
const GATE_SCRIPT = `
const fs = require('fs'), net = require('net');
const seen = { home: fs.readdirSync(process.env.HOME), processes: fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).length };
try { fs.readFileSync(process.env.HOME + '/.ssh/id_ed25519'); seen.key = 'read'; } catch (e) { seen.key = e.code; }
const proxy = new URL(process.env.HTTP_PROXY);
const s = net.connect(Number(proxy.port), '127.0.0.1', () => s.write('GET http://gate-blocked.example/ HTTP/1.1\\r\\nHost: gate-blocked.example\\r\\n\\r\\n'));
let reply = '';
s.on('data', (c) => (reply += c));
s.on('end', () => { seen.proxy = reply.split('\\r\\n')[0]; fs.writeFileSync('gate.json', JSON.stringify(seen)); });
`;

describe('the bubblewrap sandbox', () => {
  it('holds the agent and its gates to the work dir, its own processes and the allowed hosts, and records every refusal', async () => {
    const allowedPort = await listener('allowed');
    const forbiddenPort = await listener('forbidden');
    const { home, key } = await homeWithKey();
    const { root, env: fakeEnv } = await guardedWorkspace({
      defaults: { workDir: 'project' },
      sandbox: { kind: 'bwrap', allowHosts: [`127.0.0.1:${allowedPort}`] },
      gates: [{ name: 'inside', command: ['node', '-e', GATE_SCRIPT] }],
    });
    const project = path.join(root, 'project');
    fs.mkdirSync(project);
    const pid = bystander();
    const outside = path.join(root, 'outside.txt');
    const env = {
      // The fake's ledger files are outside the work dir: out of its reach in the sandbox.
      [TEST_RUN_MARKER]: fakeEnv[TEST_RUN_MARKER] ?? '',
      HOME: home,
      FAKE_PROBE: JSON.stringify({
        write: [outside, '/usr/ralph-sandbox-test', path.join(project, 'inside.txt')],
        read: [key],
        signal: [pid],
        connect: [forbiddenPort, allowedPort],
        through: ['http://blocked.example/', `http://127.0.0.1:${allowedPort}/`],
        tunnel: ['blocked.example:443'],
      }),
    };
    await ralph(root, ['add', 'Probe', '--id', 'probe', '--body', '#behave: probe'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);

    const seen = JSON.parse(fs.readFileSync(path.join(project, 'probe.json'), 'utf8')) as Record<
      string,
      { ok: boolean; code?: string; value?: unknown }
    >;
    // Writes: the work dir alone (a write under the private /tmp stays there).
    expect(fs.existsSync(outside)).toBe(false);
    expect(seen['write /usr/ralph-sandbox-test']).toMatchObject({ ok: false, code: 'EROFS' });
    expect(seen[`write ${path.join(project, 'inside.txt')}`]).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(project, 'inside.txt'), 'utf8')).toBe('from the sandbox');
    // $HOME is empty but for what the CLI keeps there.
    expect(seen[`read ${key}`]).toMatchObject({ ok: false, code: 'ENOENT' });
    // Its own processes alone: the test's is neither seen nor signalled.
    expect(seen[`signal ${pid}`]).toMatchObject({ ok: false, code: 'ESRCH' });
    expect(process.kill(pid, 0)).toBe(true);
    expect(seen.processes?.value).toBeLessThan(10);
    // No network of its own: loopback outside is out of reach, allowed or not.
    expect(seen[`connect ${forbiddenPort}`]).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    // The allowed loopback endpoint is forwarded through the proxy.
    expect(seen[`connect ${allowedPort}`]).toMatchObject({ ok: true });
    // Through the proxy: an allowed host works, another is refused.
    expect(seen['through http://blocked.example/']?.value).toMatch(/^HTTP\/1\.1 403/);
    expect(seen[`through http://127.0.0.1:${allowedPort}/`]?.value).toMatch(
      /^HTTP\/1\.1 200 OK hello from allowed/,
    );
    expect(seen['tunnel blocked.example:443']?.value).toMatch(/^HTTP\/1\.1 403/);

    // The gate ran inside the same sandbox.
    const gate = JSON.parse(fs.readFileSync(path.join(project, 'gate.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(gate).toMatchObject({ key: 'ENOENT', proxy: expect.stringMatching(/^HTTP\/1\.1 403/) });
    expect(gate.processes).toBeLessThan(10);

    const [record] = readSessions(root);
    expect(record).toMatchObject({
      outcome: { kind: 'success' },
      sandbox: { kind: 'bwrap', network: 'allow' },
      egressBlockedCount: 3,
    });
    expect(record?.egressBlocked).toEqual([
      { host: 'blocked.example', port: 80, at: expect.any(String), by: 'agent' },
      { host: 'blocked.example', port: 443, at: expect.any(String), by: 'agent' },
      { host: 'gate-blocked.example', port: 80, at: expect.any(String), by: 'gate' },
    ]);
    expect(logEvents(root).filter((e) => e.event === 'egress_blocked')).toHaveLength(3);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });
});
