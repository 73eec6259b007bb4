// An environment per worktree: the setup stage copies what `.worktreeinclude` lists (ignored
// files alone), runs `setup` in a new worktree and `maintenance` in a kept one before a session,
// with the secrets named for it, which the agent never gets. A failed setup is the
// environment's fault: the item is parked with the command and its output, no attempt spent.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { item, landingWorkspace } from '../support/landing.js';
import { ralph, readSessions, tempDir } from '../support/workspace.js';

/** A node one-liner as an argv array. */
const node = (script: string) => ['node', '-e', script];

/** Appends `line` to the ledger file `file` (outside the worktree), then runs `then`. */
const ledger = (file: string, line: string, then = '') =>
  `require('fs').appendFileSync(${JSON.stringify(file)}, ${line} + '\\n');${then}`;

/**
 * A repository whose main checkout holds an ignored `.env`, an untracked `notes.txt` git does
 * not ignore, and a `.worktreeinclude` naming both and the tracked README.
 */
async function project(config: Record<string, unknown>, land = false) {
  const made = await landingWorkspace({ enabled: land }, config);
  const { repo } = made;
  fs.writeFileSync(path.join(repo, '.gitignore'), '.env\ndeps/\n');
  fs.writeFileSync(path.join(repo, '.worktreeinclude'), '.env\nnotes.txt\nREADME.md\n');
  git(repo, 'add', '.gitignore', '.worktreeinclude');
  git(repo, 'commit', '-q', '-m', 'ignore and include');
  fs.writeFileSync(path.join(repo, '.env'), 'API_URL=http://127.0.0.1:9\n');
  fs.writeFileSync(path.join(repo, 'notes.txt'), 'a person notes\n');
  fs.writeFileSync(path.join(repo, 'README.md'), '# changed in the checkout, not committed\n');
  return { ...made, ledgers: await tempDir('ralph-ledgers-') };
}

/** A run that tries a failed item again at once. */
const RETRY_AT_ONCE = {
  retryBackoffCap: 0,
  failureBackoffCap: 0,
  maxConsecutiveFailures: 0,
  pollInterval: 0.2,
};

/** A gate that fails the first time it runs only, counting its runs in `gateLedger`. */
const failsOnce = (gateLedger: string) =>
  node(
    ledger(
      gateLedger,
      "'gate'",
      `if(require('fs').readFileSync(${JSON.stringify(gateLedger)},'utf8').split('\\n').length<3)process.exit(1)`,
    ),
  );

const lines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];

describe('an environment per worktree', () => {
  it('is made by setup before each new worktree first session: included files copied, the secret for setup alone', async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const setupLedger = path.join(ledgers, 'setup');
    const { root, repo } = await project({
      environment: {
        setup: [
          node(
            ledger(
              setupLedger,
              "process.cwd() + ' ' + (process.env.SETUP_TOKEN ?? 'none')",
              "fs=require('fs');fs.mkdirSync('deps');fs.writeFileSync('deps/ready','yes');",
            ),
          ),
        ],
        secrets: ['SETUP_TOKEN'],
      },
      // Passes only in a worktree setup made ready, with the ignored file copied in and the
      // untracked one and the tracked one's uncommitted change not.
      gates: [
        node(
          "const fs=require('fs');if(!fs.existsSync('deps/ready')||!fs.existsSync('.env')||fs.existsSync('notes.txt')||fs.readFileSync('README.md','utf8')!=='# A project\\n')process.exit(1)",
        ),
      ],
      run: { workers: 2, failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    });
    const calls = path.join(ledgers, 'calls.jsonl');
    const env = { SETUP_TOKEN: 'setup-secret-7f3a', FAKE_CLAUDE_CALLS: calls };
    for (const id of ['a', 'b', 'c'])
      expect(
        (await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', `#behave: work commit=1`]))
          .code,
      ).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    for (const id of ['a', 'b', 'c']) {
      const it = item(root, id);
      // Its gate passed at its first attempt: setup spent none.
      expect(it).toMatchObject({ status: 'done', attempts: 1 });
      expect(it.environment).toMatchObject({ readyFor: 0 });
    }
    // Setup ran once per worktree, in it, with the secret named for it.
    const ran = lines(setupLedger).sort();
    expect(ran).toEqual(
      ['a', 'b', 'c'].map((id) => `${path.join(root, 'worktrees', id)} setup-secret-7f3a`),
    );
    // The agent never had the secret.
    for (const call of lines(calls))
      expect((JSON.parse(call) as { env: string[] }).env).not.toContain('SETUP_TOKEN');
    // Its log beside the session that wanted it, the secret masked, the copies listed.
    const log = fs.readFileSync(
      String((item(root, 'a').environment as { log: string }).log),
      'utf8',
    );
    expect(log).toContain('[.worktreeinclude: 1 copied: .env]');
    expect(log).toContain('[setup "');
    expect(fs.existsSync(path.join(repo, 'notes.txt'))).toBe(true);
    const show = await ralph(root, ['show', 'a']);
    expect(show.stdout).toMatch(/Environment: +ready/);
    // Its session's transcript begins with the setup that made its worktree ready.
    const logs = await ralph(root, ['logs', 'a']);
    expect(logs.stdout).toContain(`── its worktree was made ready first (${root}`);
    expect(logs.stdout).toContain('[.worktreeinclude: 1 copied: .env]');
  });

  it('that fails parks its item with the command and its output, no attempt spent, and resume tries again', async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const marker = path.join(ledgers, 'fixed');
    const { root, repo } = await project({
      environment: {
        setup: [
          node(
            `if(!require('fs').existsSync(${JSON.stringify(marker)})){console.error('npm ERR! 404 left-pad is not in this registry');process.exit(1)}`,
          ),
        ],
      },
    });
    const calls = path.join(ledgers, 'calls.jsonl');
    // Found in the evening: doctor runs the setup in a throw-away worktree, and leaves none.
    const doctor = await ralph(root, ['doctor', '--setup']);
    expect(doctor.stdout).toMatch(/FAIL +setup +The setup command/);
    expect(doctor.stdout).toContain('npm ERR! 404 left-pad');
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    await ralph(root, ['add', 'Fix it', '--id', 'fix', '--body', '#behave: work commit=1']);
    const run = await ralph(root, ['run', '--drain'], { FAKE_CLAUDE_CALLS: calls });
    const parked = item(root, 'fix');
    expect(parked).toMatchObject({ status: 'parked', attempts: 0, lastOutcome: 'setup_failed' });
    expect(String(parked.lastError)).toContain('The setup command');
    expect(String(parked.lastError)).toContain('npm ERR! 404 left-pad');
    expect(fs.existsSync(calls)).toBe(false);
    expect(readSessions(root)).toEqual([]);
    expect(run.stdout + run.stderr).toContain('environment_failed');
    const show = await ralph(root, ['show', 'fix']);
    expect(show.stderr).toContain('its environment failed');
    expect(show.stderr).toContain('npm ERR! 404 left-pad');

    fs.writeFileSync(marker, '');
    expect((await ralph(root, ['doctor', '--setup'])).stdout).toMatch(
      /ok +setup +1 command\(s\) ran in a throw-away worktree/,
    );
    expect((await ralph(root, ['resume', 'fix'])).code).toBe(0);
    const again = await ralph(root, ['run', '--drain'], { FAKE_CLAUDE_CALLS: calls });
    expect(again.code, again.stderr).toBe(0);
    expect(item(root, 'fix')).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('is kept up by maintenance when a kept worktree is used again', async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const setupLedger = path.join(ledgers, 'setup');
    const maintenanceLedger = path.join(ledgers, 'maintenance');
    const gateLedger = path.join(ledgers, 'gate');
    const { root } = await project({
      environment: {
        setup: [node(ledger(setupLedger, "'setup'"))],
        maintenance: [node(ledger(maintenanceLedger, "'maintenance'"))],
      },
      run: RETRY_AT_ONCE,
      // Fails the first time only: the item's second attempt reuses its worktree.
      gates: [failsOnce(gateLedger)],
    });
    await ralph(root, ['add', 'Twice', '--id', 'twice', '--body', '#behave: work commit=1']);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'twice')).toMatchObject({ status: 'done', attempts: 2 });
    expect(lines(setupLedger)).toEqual(['setup']);
    expect(lines(maintenanceLedger)).toEqual(['maintenance']);
    // An item's own setup replaces the workspace's.
    await ralph(root, [
      'add',
      'Own',
      '--id',
      'own',
      '--setup',
      '["npm", "ci"]',
      '--setup',
      'make deps',
    ]);
    expect(item(root, 'own').setup).toEqual([
      { name: 'npm ci', command: ['npm', 'ci'], timeout: 600 },
      { name: 'make deps', command: ['make', 'deps'], timeout: 600 },
    ]);
  });

  it("is read from the repository's own .ralph/environment.json as committed, never a worktree's copy, and names no secret", async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const setupLedger = path.join(ledgers, 'setup');
    const maintenanceLedger = path.join(ledgers, 'maintenance');
    const gateLedger = path.join(ledgers, 'gate');
    const { root, repo } = await project({
      run: RETRY_AT_ONCE,
      // Fails the first time only: the item's second attempt reuses its worktree.
      gates: [failsOnce(gateLedger)],
    });
    const file = path.join(repo, '.ralph', 'environment.json');
    fs.mkdirSync(path.dirname(file));
    const commit = (environment: unknown) => {
      fs.writeFileSync(file, JSON.stringify(environment));
      git(repo, 'add', '.ralph');
      git(repo, 'commit', '-q', '-m', 'environment');
    };
    // A repository cannot choose which of the runner's secrets its setup gets.
    commit({ secrets: ['ANTHROPIC_API_KEY'] });
    const refused = await ralph(root, ['doctor', '--setup']);
    expect(refused.stdout).toMatch(/FAIL +setup/);
    expect(refused.stdout).toContain(`${file} (as committed at HEAD) is invalid`);
    expect(refused.stdout).toContain('unknown key "secrets"');
    commit({
      setup: [node(ledger(setupLedger, "'repository setup'"))],
      maintenance: [node(ledger(maintenanceLedger, "'repository maintenance'"))],
    });
    // What the checkout holds uncommitted is not what the repository says.
    fs.writeFileSync(file, '{"setup": [["false"]]}');
    // The agent spoils its branch's copy: the maintenance after it still runs the committed one.
    await ralph(root, [
      'add',
      'Spoil',
      '--id',
      'spoil',
      '--body',
      '#behave: work file=.ralph/environment.json commit=1',
    ]);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'spoil')).toMatchObject({ status: 'done', attempts: 2 });
    expect(lines(setupLedger)).toEqual(['repository setup']);
    expect(lines(maintenanceLedger)).toEqual(['repository maintenance']);
  });

  it('gives each running item ports of its own: two gates serve on RALPH_PORT at once without a clash', async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    // Serves on its item's port until both items' gates serve at once.
    const serve = `const net=require('net'),fs=require('fs'),path=require('path');
const dir=${JSON.stringify(ledgers)};
const s=net.createServer().listen(Number(process.env.RALPH_PORT),'127.0.0.1',()=>{
  fs.writeFileSync(path.join(dir,'up-'+process.env.RALPH_ITEM_ID),process.env.RALPH_PORT+' '+process.env.RALPH_SLOT);
  const t=setInterval(()=>{if(fs.readdirSync(dir).filter((f)=>f.startsWith('up-')).length>=2){clearInterval(t);s.close();}},20);
});
s.on('error',(e)=>{console.error(e.code);process.exit(1);});`;
    const { root } = await project({
      gates: [{ name: 'serve', command: node(serve), timeout: 30 }],
      run: { workers: 2, failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    });
    const calls = path.join(ledgers, 'calls.jsonl');
    for (const id of ['a', 'b'])
      await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', '#behave: work commit=1']);
    const run = await ralph(root, ['run', '--drain'], { FAKE_CLAUDE_CALLS: calls });
    expect(run.code, run.stderr).toBe(0);
    for (const id of ['a', 'b'])
      expect(item(root, id)).toMatchObject({ status: 'done', attempts: 1 });
    const served = ['a', 'b'].map((id) => fs.readFileSync(path.join(ledgers, `up-${id}`), 'utf8'));
    expect(new Set(served).size).toBe(2);
    for (const call of lines(calls))
      expect((JSON.parse(call) as { env: string[] }).env).toEqual(
        expect.arrayContaining(['RALPH_PORT', 'RALPH_PORTS', 'RALPH_SLOT']),
      );
  });

  it("is the landing worktree's too: its land gates run the same tests, set up the same way", async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const setupLedger = path.join(ledgers, 'setup');
    const { root } = await project(
      {
        environment: {
          setup: [
            node(
              ledger(
                setupLedger,
                'process.cwd()',
                "fs=require('fs');fs.mkdirSync('deps');fs.writeFileSync('deps/ready','yes');",
              ),
            ),
          ],
        },
        gates: [node("if(!require('fs').existsSync('deps/ready'))process.exit(1)")],
      },
      true,
    );
    for (const id of ['a', 'b'])
      await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', '#behave: work commit=1']);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    for (const id of ['a', 'b'])
      expect(item(root, id)).toMatchObject({
        status: 'done',
        attempts: 1,
        landedOn: 'ralph/landed',
      });
    // Each item's worktree, and the landing worktree once.
    const ran = lines(setupLedger);
    expect(ran.filter((dir) => dir.includes(path.join(root, 'worktrees')))).toHaveLength(2);
    expect(ran.filter((dir) => dir.includes(path.join(root, 'state', 'land')))).toHaveLength(1);
  });

  it('under the sandbox, lets setup reach a host the agent cannot', async () => {
    const server = http.createServer((_req, res) => res.end('registry'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const fetch = `require('http').get('http://127.0.0.1:${port}/',(r)=>{let b='';r.on('data',(c)=>b+=c);r.on('end',()=>require('fs').writeFileSync('reached.txt',b));}).on('error',(e)=>{console.error(e.code);process.exit(1);});`;
      const { root, repo } = await project({
        sandbox: { kind: 'bwrap' },
        environment: { setup: [node(fetch)], allowHosts: [`127.0.0.1:${port}`] },
      });
      const env = { FAKE_PROBE: JSON.stringify({ connect: [port] }) };
      await ralph(root, ['add', 'Probe', '--id', 'probe', '--body', '#behave: probe'], env);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      // What setup fetched, and what the agent saw, both committed on the item's branch.
      expect(git(repo, 'show', 'ralph/probe:reached.txt')).toBe('registry');
      const seen = JSON.parse(git(repo, 'show', 'ralph/probe:probe.json')) as Record<
        string,
        { ok: boolean; code?: string }
      >;
      expect(seen[`connect ${port}`]).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    } finally {
      server.close();
    }
  });

  it('keeps a service running beside the session and its gates, stopped and reaped with the attempt', async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const pidFile = path.join(ledgers, 'service.pid');
    // A database stand-in on the item's second port; it ignores SIGTERM, so only a reaping ends it.
    const service = `process.on('SIGTERM',()=>{});require('fs').writeFileSync(${JSON.stringify(pidFile)},String(process.pid));
require('net').createServer((s)=>s.end('db')).listen(Number(process.env.RALPH_PORT)+1,'127.0.0.1',()=>console.log('db up'));`;
    // Waits for the service, then asks it.
    const gate = `const net=require('net');let tries=0;(function ask(){const s=net.connect(Number(process.env.RALPH_PORT)+1,'127.0.0.1');let b='';
s.on('data',(c)=>b+=c);s.on('end',()=>process.exit(b==='db'?0:1));s.on('error',()=>{if(++tries>200)process.exit(1);setTimeout(ask,25);});})();`;
    const { root } = await project({
      environment: { services: [{ name: 'db', command: node(service) }] },
      gates: [{ name: 'asks the db', command: node(gate), timeout: 30 }],
      run: {
        killGrace: '0.3s',
        failureBackoffCap: 0,
        maxConsecutiveFailures: 0,
        pollInterval: 0.2,
      },
    });
    await ralph(root, ['add', 'With a db', '--id', 'db', '--body', '#behave: work commit=1']);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'db')).toMatchObject({ status: 'done', attempts: 1 });
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    const [session] = readSessions(root);
    const log = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${String(session?.sessionId)}-services.log`),
      'utf8',
    );
    expect(log).toContain('db up');
    expect(log).toContain('[service "db" ended: SIGKILL]');
  });
});
