// The bubblewrap sandbox: the work dir alone writable, $HOME empty, its own processes, no
// network but ralph's proxy to the allowed hosts; every refusal in the session's record.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/git.js';
import { guardedWorkspace, logEvents } from '../support/guarded.js';
import { TEST_RUN_MARKER } from '../support/leak-check.js';
import { sessionSurvivors } from '../support/processes.js';
import { startRunner } from '../support/runner.js';
import { eventually, waitUntil } from '../support/wait.js';
import {
  RALPH_BIN,
  ralph,
  readQueue,
  readSessions,
  runningRecords,
  tempDir,
} from '../support/workspace.js';

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
    fs.mkdirSync(project, { recursive: true });
    const pid = bystander();
    const outside = path.join(root, 'outside.txt');
    const env = {
      // The fake's ledger files are outside the work dir: out of its reach in the sandbox.
      [TEST_RUN_MARKER]: fakeEnv[TEST_RUN_MARKER] ?? '',
      HOME: home,
      FAKE_PROBE: JSON.stringify({
        write: [
          outside,
          '/usr/ralph-sandbox-test',
          path.join(project, 'inside.txt'),
          path.join(root, 'state', 'queue.json'),
          path.join(root, 'docs', 'sessions', 'index.jsonl'),
        ],
        read: [key, path.join(root, 'ralph.config.json')],
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
    // The workspace around the work dir is shown empty and read-only: its state, its archive
    // and its configuration are out of the agent's reach.
    for (const file of ['state/queue.json', 'docs/sessions/index.jsonl'])
      expect(seen[`write ${path.join(root, file)}`]).toMatchObject({ ok: false });
    expect(seen[`read ${path.join(root, 'ralph.config.json')}`]).toMatchObject({
      ok: false,
      code: 'ENOENT',
    });
    expect(readQueue(root).items[0]).toMatchObject({ id: 'probe', status: 'done' });
    // $HOME is empty but for what the CLI keeps there.
    expect(seen[`read ${key}`]).toMatchObject({ ok: false, code: 'ENOENT' });
    // Its own processes alone: the test's is neither seen nor signalled.
    expect(seen[`signal ${pid}`]).toMatchObject({ ok: false, code: 'ESRCH' });
    expect(process.kill(pid, 0)).toBe(true);
    expect(seen.processes?.value).toBeLessThan(10);
    // No privileges to gain.
    expect(seen.noNewPrivs?.value).toBe('1');
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
    expect(gate.key).toBe('ENOENT');
    expect(gate.proxy).toMatch(/^HTTP\/1\.1 403/);
    expect(gate.processes).toBeLessThan(10);

    const [record] = readSessions(root);
    expect(record).toMatchObject({
      outcome: { kind: 'success' },
      sandbox: { kind: 'bwrap', network: 'allow' },
      egressBlockedCount: 3,
    });
    const blocked = record?.egressBlocked as {
      host: string;
      port: number;
      at: string;
      by: string;
    }[];
    expect(blocked.map(({ host, port, by }) => `${host}:${port} ${by}`)).toEqual([
      'blocked.example:80 agent',
      'blocked.example:443 agent',
      'gate-blocked.example:80 gate',
    ]);
    for (const { at } of blocked) expect(Date.parse(at)).toBeGreaterThan(0);
    expect(logEvents(root).filter((e) => e.event === 'egress_blocked')).toHaveLength(3);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
    // Said by show, logs and report.
    const show = await ralph(root, ['show', 'probe'], env);
    expect(show.stdout).toContain('Sandbox:  bwrap, network allow');
    expect(show.stdout).toMatch(/Blocked: {2}blocked\.example:80 at .* \(by the agent\)/);
    expect(show.stdout).toMatch(/Blocked: {2}gate-blocked\.example:80 at .* \(by the gate\)/);
    const logs = await ralph(root, ['logs', 'probe'], env);
    expect(logs.stdout).toMatch(/── Blocked: {2}blocked\.example:443 at /);
    const report = await ralph(root, ['report'], env);
    expect(report.stdout).toContain('Refused by the sandbox: 3 connections');
    expect(report.stdout).toContain('  blocked.example:443 (1 session)');
  });
});

/** A workspace whose items run in the sandbox, and the environment to run it with. */
async function sandboxedWorkspace(config: Record<string, unknown> = {}) {
  const { root, env: fakeEnv } = await guardedWorkspace({
    sandbox: { kind: 'bwrap' },
    ...config,
  });
  const { home } = await homeWithKey();
  // The fake's ledger files are outside the work dir: out of its reach in the sandbox.
  return { root, env: { [TEST_RUN_MARKER]: fakeEnv[TEST_RUN_MARKER] ?? '', HOME: home } };
}

describe("the sandbox's settings", () => {
  it('gives the paths listed, read-only or read-write, and each network as asked', async () => {
    const allowedPort = await listener('allowed');
    const { home } = await homeWithKey();
    fs.mkdirSync(path.join(home, 'shared'));
    fs.writeFileSync(path.join(home, 'shared', 'notes.txt'), 'shared notes');
    fs.mkdirSync(path.join(home, 'scratch'));
    const probe = async (sandbox: Record<string, unknown>) => {
      const { root, env: fakeEnv } = await guardedWorkspace({
        sandbox: { kind: 'bwrap', ...sandbox },
        defaults: { workDir: 'project' },
      });
      fs.mkdirSync(path.join(root, 'project'), { recursive: true });
      const env = {
        [TEST_RUN_MARKER]: fakeEnv[TEST_RUN_MARKER] ?? '',
        HOME: home,
        FAKE_PROBE: JSON.stringify({
          read: [path.join(home, 'shared', 'notes.txt')],
          write: [path.join(home, 'shared', 'mine.txt'), path.join(home, 'scratch', 'mine.txt')],
          connect: [allowedPort],
          through: [`http://127.0.0.1:${allowedPort}/`],
        }),
      };
      await ralph(root, ['add', 'Probe', '--id', 'probe', '--body', '#behave: probe'], env);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(
        fs.readFileSync(path.join(root, 'project', 'probe.json'), 'utf8'),
      ) as Record<string, { ok: boolean; code?: string; value?: unknown }>;
    };
    const listed = await probe({
      readOnly: ['~/shared'],
      readWrite: ['~/scratch'],
      allowHosts: [`127.0.0.1:${allowedPort}`],
    });
    expect(listed[`read ${path.join(home, 'shared', 'notes.txt')}`]).toMatchObject({
      ok: true,
      value: 'shared notes',
    });
    expect(listed[`write ${path.join(home, 'shared', 'mine.txt')}`]).toMatchObject({
      ok: false,
      code: 'EROFS',
    });
    expect(listed[`write ${path.join(home, 'scratch', 'mine.txt')}`]).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(home, 'scratch', 'mine.txt'), 'utf8')).toBe(
      'from the sandbox',
    );

    // `none`: the agent's API alone; the hosts listed are not let through.
    const none = await probe({ network: 'none', allowHosts: [`127.0.0.1:${allowedPort}`] });
    expect(none[`read ${path.join(home, 'shared', 'notes.txt')}`]).toMatchObject({ ok: false });
    expect(none[`connect ${allowedPort}`]).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    expect(none[`through http://127.0.0.1:${allowedPort}/`]?.value).toMatch(/^HTTP\/1\.1 403/);

    // `open`: the machine's network, and no proxy.
    const open = await probe({ network: 'open' });
    expect(open[`connect ${allowedPort}`]).toMatchObject({ ok: true });
    expect(open.proxy?.value).toBe('none');
  });
});

describe('a sandboxed agent whose runner is killed', () => {
  it('is gone with it, and the next run settles its item', async () => {
    const { root, env } = await sandboxedWorkspace();
    await ralph(
      root,
      ['add', 'Hang', '--id', 'h', '--body', '#behave: setsid-child then=hang'],
      env,
    );
    const runner = startRunner(root, env, '--drain');
    await waitUntil(root, () => runningRecords(root)[0]?.status === 'running', 10_000, 'the agent');
    const session = String(runningRecords(root)[0]?.sessionId);
    // The agent and the process it started in a session of its own are in the sandbox.
    await eventually(
      async () => (await sessionSurvivors(session)).length > 2,
      10_000,
      'the sandbox, the agent and its child',
    );
    runner.child.kill('SIGKILL');
    await runner.exited;
    await eventually(
      async () => (await sessionSurvivors(session)).length === 0,
      10_000,
      'every process of the sandbox to end',
    );
    const recovered = await ralph(root, ['recover'], env);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending' });
  });
});

describe("a sandboxed agent's $INTERRUPT_FILE", () => {
  it('pauses the night with its reason, though the workspace is out of its reach', async () => {
    const { root, env } = await sandboxedWorkspace({ defaults: { workDir: 'project' } });
    fs.mkdirSync(path.join(root, 'project'), { recursive: true });
    await ralph(
      root,
      ['add', 'Ask for help', '--id', 'helpme', '--body', '#behave: write-interrupt onresume=ok'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(6);
    expect(readSessions(root)[0]).toMatchObject({
      status: 'interrupted',
      outcome: { message: 'interrupted: agent needs a human' },
    });
    expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toBe(
      'agent needs a human\n',
    );
    expect(fs.readdirSync(path.join(root, 'state', 'sandbox'))).toEqual([]);
    await ralph(root, ['resume'], env);
    const again = await ralph(root, ['run', '--drain'], env);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });
});

describe('a sandbox that cannot be had', () => {
  it('keeps ralph run from starting the item, saying why, rather than run it without one', async () => {
    const { root, env } = await sandboxedWorkspace();
    await ralph(root, ['add', 'Boxed', '--id', 'boxed', '--body', '#behave: ok'], env);
    const run = await ralph(root, ['run', '--drain'], {
      ...env,
      RALPH_BWRAP: '/nonexistent/bwrap',
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/sandbox\.kind "bwrap"\), and bubblewrap is not installed/);
    expect(readSessions(root)).toEqual([]);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('refuses at add a CLI that cannot work inside, with its reason', async () => {
    const { root, env } = await sandboxedWorkspace();
    // codex runs inside with its own sandbox off; only its read-only mode is its own sandbox.
    const plan = ['--cli', 'codex', '--permission-mode', 'plan'];
    const added = await ralph(root, ['add', 'Codex', '--id', 'c', ...plan], env);
    expect(added.code).toBe(2);
    expect(added.stderr).toMatch(
      /codex reads only .* through its own sandbox, which is bubblewrap/,
    );
    const outside = await ralph(
      root,
      ['add', 'Codex', '--id', 'c', ...plan, '--sandbox', 'none'],
      env,
    );
    expect(outside.code, outside.stderr).toBe(0);
  });
});

/** A user without privileges of the test's own (made when missing): its uid and gid. */
function unprivilegedUser(): { uid: number; gid: number } {
  const name = 'ralph-sandbox-test';
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', name]);
  }
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }));
  return { uid: id('-u'), gid: id('-g') };
}

/** Gives `dir` and everything in it to `user`. */
function chownTree(dir: string, user: { uid: number; gid: number }): void {
  fs.chownSync(dir, user.uid, user.gid);
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }))
    fs.lchownSync(path.join(dir, entry), user.uid, user.gid);
}

/**
 * Whether a user without privileges can reach `file`: every directory above it searchable by
 * others (a checkout under a 0700 home is not, and its runner could not even start).
 */
function reachableByOthers(file: string): boolean {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
    if (dir === path.dirname(dir)) return true;
  }
}

const asRoot = process.getuid?.() === 0;
if (asRoot && !reachableByOthers(RALPH_BIN))
  process.stderr.write(
    `skipped: the sandbox of a runner without privileges (${RALPH_BIN} is under a directory others cannot search)\n`,
  );

describe.runIf(asRoot && reachableByOthers(RALPH_BIN))(
  'the sandbox of a runner without privileges',
  () => {
    it('holds its agent as it does for root', async () => {
      const user = unprivilegedUser();
      const { home, key } = await homeWithKey();
      const { root } = await guardedWorkspace({
        sandbox: { kind: 'bwrap' },
        defaults: { workDir: 'project' },
      });
      const project = path.join(root, 'project');
      fs.mkdirSync(project, { recursive: true });
      chownTree(root, user);
      chownTree(home, user);
      const pid = bystander();
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        FAKE_PROBE: JSON.stringify({
          write: ['/usr/ralph-sandbox-test'],
          read: [key],
          signal: [pid],
        }),
      };
      const run = (...args: string[]) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [RALPH_BIN, '-C', root, ...args], {
            env,
            uid: user.uid,
            gid: user.gid,
            stdio: 'ignore',
          });
          child.on('exit', (code) => resolve(code));
        });
      expect(await run('add', 'Probe', '--id', 'probe', '--body', '#behave: probe')).toBe(0);
      expect(await run('run', '--drain')).toBe(0);
      const seen = JSON.parse(fs.readFileSync(path.join(project, 'probe.json'), 'utf8')) as Record<
        string,
        { ok: boolean; code?: string }
      >;
      expect(seen['write /usr/ralph-sandbox-test']).toMatchObject({ ok: false, code: 'EROFS' });
      expect(seen[`read ${key}`]).toMatchObject({ ok: false, code: 'ENOENT' });
      expect(seen[`signal ${pid}`]).toMatchObject({ ok: false, code: 'ESRCH' });
      expect(readSessions(root)[0]).toMatchObject({
        outcome: { kind: 'success' },
        sandbox: { kind: 'bwrap' },
      });
    });
  },
);

describe('ralph init and ralph doctor on the sandbox', () => {
  it('init asks for it where bubblewrap works, and doctor says which and why', async () => {
    const here = await tempDir();
    const project = await tempDir('ralph-project-');
    const init = await ralph(here, ['init', here, '--project', project]);
    expect(init.stdout).toContain('Sandbox: bwrap (bubblewrap works here');
    const config = JSON.parse(fs.readFileSync(path.join(here, 'ralph.config.json'), 'utf8')) as {
      sandbox: { kind: string; network: string };
    };
    expect(config.sandbox).toMatchObject({ kind: 'bwrap', network: 'allow' });
    const doctor = await ralph(here, ['doctor']);
    expect(doctor.stdout).toMatch(/ok +sandbox +bubblewrap: the work dir alone writable/);
    expect(doctor.stdout).not.toMatch(/the agent may run any command/);
    await ralph(here, ['add', 'Task', '--id', 'task']);
    expect((await ralph(here, ['run', '--dry-run'])).stdout).toContain(
      '# sandbox: bwrap, network allow: api.anthropic.com:443',
    );
    const missing = { RALPH_BWRAP: '/nonexistent/bwrap' };
    expect((await ralph(here, ['doctor'], missing)).stdout).toMatch(
      /FAIL +sandbox +sandbox\.kind is "bwrap", and bubblewrap is not installed/,
    );

    const elsewhere = await tempDir();
    const without = await ralph(elsewhere, ['init', elsewhere], missing);
    expect(without.stdout).toContain('Sandbox: none (bubblewrap is not installed');
    expect((await ralph(elsewhere, ['doctor'], missing)).stdout).toMatch(
      /warn +sandbox +none, and bubblewrap is not installed/,
    );
  });
});

/** What a gate sees inside, printed into its log: the planted key, its processes, the repo's config. */
const LOOK_SCRIPT = `
const fs = require('fs');
let key; try { fs.readFileSync(process.env.HOME + '/.ssh/id_ed25519'); key = 'read'; } catch (e) { key = e.code; }
let config; try { fs.appendFileSync(require('child_process').execFileSync('git', ['rev-parse', '--git-common-dir'], { encoding: 'utf8' }).trim() + '/config', '#'); config = 'changed'; } catch (e) { config = e.code; }
console.log('inside:', JSON.stringify({ key, config, processes: fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).length }));
`;

describe('git mode and landing in the sandbox', () => {
  it("runs the agent on its worktree, its gates and its land gates inside; the repository's config stays out of reach", async () => {
    const repo = await makeRepo();
    const { root, env } = await sandboxedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true },
      land: { enabled: true },
      gates: [{ name: 'look', command: ['node', '-e', LOOK_SCRIPT] }],
    });
    const before = fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8');
    await ralph(root, ['add', 'Work', '--id', 'w', '--body', '#behave: work commit=1'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
    expect(readQueue(root).items[0]?.landedCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(repo, 'show', 'ralph/landed:w.txt')).toContain('work of w');
    const sessionId = String(readSessions(root)[0]?.sessionId);
    for (const log of ['-gates.log', '-land.log']) {
      const text = fs.readFileSync(
        path.join(root, 'docs', 'sessions', `${sessionId}${log}`),
        'utf8',
      );
      const seen = JSON.parse(/inside: (.*)/.exec(text)?.[1] ?? '{}') as Record<string, unknown>;
      expect(seen, log).toMatchObject({ key: 'ENOENT', config: 'EROFS' });
      expect(seen.processes, log).toBeLessThan(10);
    }
    expect(fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8')).toBe(before);
  });
});
