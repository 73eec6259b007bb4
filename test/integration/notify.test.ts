// Notifications: a receiver of the suite's own on 127.0.0.1 for the webhook, Slack and ntfy
// formats, and a command notifier. Each event is told once; a receiver that is down gets it
// when it is back; a runner killed with the message written but not sent sends it once after
// its restart; a receiver that hangs never holds the next item back.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bodies, startReceiver, type Receiver } from '../support/receiver.js';
import { startRunner } from '../support/runner.js';
import { waitUntil } from '../support/wait.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue, tempDir } from '../support/workspace.js';

const SLACK_URL_SECRET = 'T000-slack-webhook-secret-path-0123456789';
const NTFY_TOKEN = 'tk_ntfytokenvalue0123456789';
const SIGNING_SECRET = 'whsec-0123456789abcdef';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(port?: number): Promise<Receiver> {
  const r = await startReceiver(port);
  receivers.push(r);
  return r;
}

async function workspace(notify: unknown[], config: Record<string, unknown> = {}) {
  return makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    defaults: { workDir: await tempDir() },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    notify,
    rig: 'nightly',
    ...config,
  });
}

async function add(root: string, id: string, behave: string, ...flags: string[]) {
  const added = await ralph(root, [
    'add',
    `Item ${id}`,
    '--id',
    id,
    '--body',
    `#behave: ${behave}`,
    ...flags,
  ]);
  expect(added.code, added.stderr).toBe(0);
}

const events = (r: Receiver, path = '/hook') => bodies(r, path).map((b) => b.event);
const outbox = (root: string, sent = false) => {
  const dir = path.join(root, 'state', 'outbox', ...(sent ? ['sent'] : []));
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
};

describe('notifications', () => {
  it('tells each event once, through a webhook, Slack, ntfy and a command', async () => {
    const hooks = await receiver();
    const dir = await tempDir();
    const commandOut = path.join(dir, 'told.jsonl');
    const script = path.join(dir, 'tell.mjs');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';\nlet s = '';\nprocess.stdin.on('data', (c) => (s += c));\nprocess.stdin.on('end', () => fs.appendFileSync(${JSON.stringify(commandOut)}, JSON.stringify({ env: process.env.RALPH_EVENT, ...JSON.parse(s) }) + '\\n'));\n`,
    );
    const root = await workspace([
      { kind: 'webhook', url: `${hooks.url}/hook`, secretEnv: 'HOOK_SECRET' },
      { kind: 'slack', urlEnv: 'SLACK_URL', events: ['item_failed', 'night_ended'] },
      { kind: 'ntfy', url: `${hooks.url}/ntfy/night-topic`, tokenEnv: 'NTFY_TOKEN', priority: 4 },
      { kind: 'command', command: [process.execPath, script], events: ['needs_input'] },
    ]);
    await add(root, 'good', 'ok');
    await add(root, 'bad', 'no-result', '--max-attempts', '1');
    await add(root, 'asks', 'ask q=which-colour?');
    const env = {
      HOOK_SECRET: SIGNING_SECRET,
      SLACK_URL: `${hooks.url}/slack/${SLACK_URL_SECRET}`,
      NTFY_TOKEN,
    };
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(1);

    // The webhook: every event once, as JSON, signed with its secret.
    expect(events(hooks).sort()).toEqual(['item_failed', 'needs_input', 'night_ended']);
    for (const got of hooks.received.filter((r) => r.path === '/hook'))
      expect(got.headers['x-ralph-signature']).toBe(
        `sha256=${createHmac('sha256', SIGNING_SECRET).update(got.body).digest('hex')}`,
      );
    const [failed] = bodies(hooks, '/hook').filter((b) => b.event === 'item_failed');
    expect(failed).toMatchObject({
      title: 'ralph (nightly): bad failed',
      data: { item: 'bad', outcome: 'no_result' },
    });
    const [ended] = bodies(hooks, '/hook').filter((b) => b.event === 'night_ended');
    expect(ended?.text).toMatch(/2 of 3 sessions succeeded; 1 item failed; 0 landed/);
    expect(ended?.text).toContain('- bad: no_result');
    // Slack: its two events, as its incoming webhooks take them.
    const slack = bodies(hooks, `/slack/${SLACK_URL_SECRET}`);
    expect(slack.map((b) => String(b.text).split('\n')[0])).toEqual([
      '*ralph (nightly): bad failed*',
      expect.stringMatching(/^\*ralph \(nightly\): the night ended/),
    ]);
    // ntfy: JSON publishing to the server's root, the topic in the body, its token.
    const ntfy = hooks.received.filter((r) => r.path === '/ntfy/');
    expect(ntfy).toHaveLength(3);
    expect(ntfy[0]?.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    expect(JSON.parse(ntfy[0]?.body ?? '{}')).toMatchObject({ topic: 'night-topic', priority: 4 });
    // The command: the question, once, on its standard input.
    const told = fs.readFileSync(commandOut, 'utf8').trim().split('\n');
    expect(told).toHaveLength(1);
    const question = JSON.parse(told[0] ?? '{}') as Record<string, string>;
    expect(question).toMatchObject({
      env: 'needs_input',
      title: 'ralph (nightly): asks asks you something',
    });
    expect(question.text).toContain('which colour?');
    // All delivered: nothing waits; no secret in the log or the outbox.
    expect(outbox(root)).toEqual([]);
    expect(outbox(root, true)).toHaveLength(3);
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toContain('"event":"notify_sent"');
    const kept = [
      log,
      ...outbox(root, true).map((n) =>
        fs.readFileSync(path.join(root, 'state', 'outbox', 'sent', n), 'utf8'),
      ),
    ].join('\n');
    for (const secret of [SLACK_URL_SECRET, NTFY_TOKEN, SIGNING_SECRET])
      expect(kept).not.toContain(secret);
  });

  it('tells a pause and a cost cap', async () => {
    const hooks = await receiver();
    const root = await workspace([{ kind: 'webhook', url: `${hooks.url}/hook` }]);
    await add(root, 'one', 'ok');
    await add(root, 'two', 'ok');
    const capped = await ralph(root, ['run', '--drain', '--max-cost', '0.005']);
    expect(capped.code, capped.stderr).toBe(0);
    expect(events(hooks), JSON.stringify(bodies(hooks, '/hook'))).toEqual([
      'cost_cap',
      'night_ended',
    ]);
    expect(bodies(hooks, '/hook')[0]?.text).toContain(
      'the run has spent $0.0100 of its $0.005 limit',
    );
    hooks.received.length = 0;
    expect((await ralph(root, ['pause', 'the deploy is frozen'])).code).toBe(0);
    const paused = await ralph(root, ['run', '--drain']);
    expect(paused.code, paused.stderr).toBe(6);
    expect(events(hooks), JSON.stringify(bodies(hooks, '/hook'))).toEqual([
      'night_paused',
      'night_ended',
    ]);
    expect(bodies(hooks, '/hook')[0]?.text).toContain('the deploy is frozen');
  });

  it('sends what a receiver refused once it answers, within the night', async () => {
    const hooks = await receiver();
    hooks.script.push({ path: /^\/hook$/, status: 503 });
    const root = await workspace([
      { kind: 'webhook', url: `${hooks.url}/hook`, events: ['night_ended'] },
    ]);
    await add(root, 'one', 'ok');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    // Two tries of one message (the same delivery id), the second taken.
    expect(hooks.received).toHaveLength(2);
    expect(new Set(hooks.received.map((r) => r.headers['x-ralph-delivery'])).size).toBe(1);
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(/"event":"notify_failed".*"error":"answered HTTP 503"/);
    expect(log).toContain('"event":"notify_sent"');
    expect(outbox(root)).toEqual([]);
  });

  it('sends a message written but not sent when its runner was killed, once, after the restart', async () => {
    // A port with nobody behind it: the message is written, its try refused.
    const away = await receiver();
    const port = away.port;
    await away.close();
    receivers.splice(receivers.indexOf(away), 1);
    const root = await workspace([{ kind: 'webhook', url: `http://127.0.0.1:${port}/hook` }]);
    await add(root, 'bad', 'no-result', '--max-attempts', '1');
    // The drained night ends, and its runner waits a little to try the message again: killed then.
    const runner = startRunner(root, {}, '--drain');
    const tried = () =>
      outbox(root).some((name) =>
        fs.readFileSync(path.join(root, 'state', 'outbox', name), 'utf8').includes('"attempts": 1'),
      );
    await waitUntil(
      path.join(root, 'state'),
      () => fs.existsSync(path.join(root, 'state', 'outbox')) && tried(),
      20_000,
      'a refused try',
    );
    runner.child.kill('SIGKILL');
    await runner.exited;
    const back = await receiver(port);
    const restart = await ralph(root, ['run', '--drain']);
    expect(restart.code, restart.stderr).toBe(0);
    // The failure once; the dead runner found; the second night's end (and the first's, when
    // the kill came after it was written); no message twice.
    const got = events(back);
    expect(got.filter((e) => e === 'item_failed')).toHaveLength(1);
    expect(got.filter((e) => e === 'runner_stopped')).toHaveLength(1);
    expect(got).toContain('night_ended');
    const ids = back.received.map((r) => r.headers['x-ralph-delivery']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(bodies(back, '/hook').find((b) => b.event === 'runner_stopped')?.text).toContain(
      'ended without stopping',
    );
    expect(outbox(root)).toEqual([]);
    expect(readQueue(root).items.find((i) => i.id === 'bad')?.status).toBe('failed');
  });

  it('never holds the next item back for a receiver that hangs', async () => {
    const hooks = await receiver();
    hooks.answer = 'hang';
    const root = await workspace([
      { kind: 'webhook', url: `${hooks.url}/hook`, events: ['item_failed'] },
    ]);
    await add(root, 'bad', 'no-result', '--max-attempts', '1', '--priority', '5');
    await add(root, 'next', 'ok');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code).toBe(1);
    expect(readQueue(root).items.find((i) => i.id === 'next')?.status).toBe('done');
    const log = fs
      .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { time: string; event: string; item?: string });
    const nextStarted = log.find((e) => e.event === 'session_started' && e.item === 'next');
    const [first] = hooks.received;
    // The next item started while the first try still hung; that try was let go later.
    expect(first?.abandonedAt).toBeDefined();
    expect(Date.parse(nextStarted?.time ?? '')).toBeLessThan(first?.abandonedAt ?? 0);
    expect(log.some((e) => e.event === 'notify_failed')).toBe(true);
  });

  it('ralph notify test sends to each notifier and says which could not be', async () => {
    const hooks = await receiver();
    hooks.script.push({ path: /^\/ntfy\/$/, status: 404 });
    const root = await workspace([
      { kind: 'webhook', url: `${hooks.url}/hook` },
      { kind: 'ntfy', url: `${hooks.url}/ntfy/topic` },
      { kind: 'slack', urlEnv: 'SLACK_URL' },
    ]);
    const test = await ralph(root, ['notify', 'test'], {});
    expect(test.code).toBe(1);
    expect(test.stdout.split('\n')).toEqual([
      'notify[0] (webhook): sent',
      'notify[1] (ntfy): not sent: answered HTTP 404',
      'notify[2] (slack): not sent: SLACK_URL (urlEnv) is not set',
    ]);
    expect(bodies(hooks, '/hook')[0]).toMatchObject({ event: 'test' });
    // doctor finds what would keep one from being sent, and sends nothing.
    const before = hooks.received.length;
    const doctor = await ralph(root, ['doctor'], {});
    expect(doctor.code).not.toBe(0);
    expect(doctor.stdout).toMatch(/ok +notify +notify\[0\] \(webhook\), for every event/);
    expect(doctor.stdout).toMatch(
      /FAIL +notify +notify\[2\] \(slack\): SLACK_URL \(urlEnv\) not set: it would not be sent/,
    );
    expect(hooks.received).toHaveLength(before);
    const none = await ralph(await workspace([]), ['notify', 'test']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('has no notifier');
  });
});
