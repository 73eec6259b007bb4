// The HTTP API of `ralph serve`, against the built CLI on an ephemeral 127.0.0.1 port: every
// route, its validation errors, the token, Host and Origin checks, the body cap, read-only mode.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue } from '../support/workspace.js';
import { request, startServe, stateFile, stopServers, type Served } from '../support/serve.js';

afterEach(stopServers);

const fakeWorkspace = () => makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });

async function served(args: string[] = [], env: Record<string, string> = {}) {
  const root = await fakeWorkspace();
  return { root, server: await startServe(root, args, env) };
}

const json = async (server: Served, method: string, route: string, body?: unknown) => {
  const reply = await request(server, method, route, { body });
  return { status: reply.status, body: reply.json() as Record<string, unknown> };
};

describe('ralph serve: access', () => {
  it('keeps its token in state/serve-token (0600) and asks every request for it', async () => {
    const { root, server } = await served();
    const file = stateFile(root, 'serve-token');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(server.token);
    for (const route of ['/health', '/items', '/events', '/sessions', '/', '/assets/app.js']) {
      const reply = await request(server, 'GET', route, { headers: { authorization: '' } });
      expect(reply.status, route).toBe(401);
    }
    const wrong = await request(server, 'GET', '/health', {
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.status).toBe(401);
    expect((await request(server, 'GET', '/health')).status).toBe(200);
    // A second start reuses the token.
    await server.stop();
    const again = await startServe(root);
    expect(again.token).toBe(server.token);
  });

  it('gives the browser the token once, as an HttpOnly SameSite=Strict cookie', async () => {
    const { server } = await served();
    const open = await request(server, 'GET', `/?token=${server.token}`, {
      headers: { authorization: '' },
    });
    expect(open.status).toBe(303);
    expect(open.headers.location).toBe('/');
    const cookie = String(open.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await request(server, 'GET', '/', {
      headers: { authorization: '', cookie: cookie.split(';')[0] as string },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain('/assets/app.js');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin (cross-site)', async () => {
    const { server } = await served();
    const host = await request(server, 'GET', '/health', { headers: { host: 'evil.example' } });
    expect(host.status).toBe(403);
    const origin = await request(server, 'POST', '/pause', {
      body: {},
      headers: { origin: 'http://evil.example' },
    });
    expect(origin.status).toBe(403);
    // Through a tunnel the port may differ; a loopback name is still this machine.
    const tunnel = await request(server, 'GET', '/health', {
      headers: { host: 'localhost:8123', origin: 'http://localhost:8123' },
    });
    expect(tunnel.status).toBe(200);
    expect(tunnel.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a token file others can read', async () => {
    const root = await fakeWorkspace();
    fs.writeFileSync(stateFile(root, 'serve-token'), 'x'.repeat(40), { mode: 0o644 });
    fs.chmodSync(stateFile(root, 'serve-token'), 0o644);
    const refused = await ralph(root, ['serve', '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/readable by others \(mode 644\)/);
  });

  it('needs a token of the user for an address others can reach', async () => {
    const root = await fakeWorkspace();
    const refused = await ralph(root, ['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--token/);
    const short = await ralph(root, ['serve', '--port', '0', '--token', 'short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 24/);
  });
});

describe('ralph serve: the API', () => {
  it('reports health: version, runner, pause, queue counts', async () => {
    const { root, server } = await served();
    await ralph(root, ['add', 'One', '--id', 'one']);
    await ralph(root, ['pause', 'for the test']);
    const { status, body } = await json(server, 'GET', '/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      version: expect.any(String) as unknown,
      readOnly: false,
      paused: { reason: 'for the test' },
      queue: { pending: 1 },
      server: { pid: server.child.pid },
    });
    expect(body.runner).toBeUndefined();
    const described = await json(server, 'GET', '/openapi.json');
    expect(described.body).toMatchObject({ openapi: '3.1.0', paths: { '/health': {} } });
  });

  it('adds items with the defaults and checks of ralph add, naming the bad field', async () => {
    const { root, server } = await served();
    const added = await json(server, 'POST', '/items', {
      title: 'From the API',
      body: 'Do it.',
      priority: 3,
      maxTurns: 5,
      allowedTools: ['Read'],
    });
    expect(added.status).toBe(201);
    const cli = await ralph(root, ['add', 'From the CLI', '--priority', '3', '--max-turns', '5']);
    const items = readQueue(root).items;
    const api = items.find((i) => i.title === 'From the API');
    const fromCli = items.find((i) => i.id === cli.stdout.trim());
    expect(api).toMatchObject({ id: added.body.id, status: 'pending', priority: 3, maxTurns: 5 });
    expect(Object.keys(api ?? {}).sort()).toEqual(
      [...Object.keys(fromCli ?? {}), 'body', 'allowedTools'].sort(),
    );
    expect(String(added.body.id)).toMatch(/^from-the-api-[0-9a-f]{4}$/);

    const cases: [unknown, string][] = [
      [{ title: 'x', priority: 'high' }, 'priority'],
      [{ title: 'x', maxTurns: 0 }, 'maxTurns'],
      [{ title: 'x', id: '../escape' }, 'id'],
      [{ title: 'two\nlines' }, 'title'],
      [{ title: 'x', dependsOn: ['nowhere'] }, 'dependsOn'],
      [{ title: 'x', agent: 'ghost' }, 'agent'],
      [{ title: 'x', surprise: 1 }, '(top level)'],
      [{}, 'title'],
      [{ title: 'x', cli: 'vim' }, 'cli'],
      [{ title: 'x', status: 'done' }, '(top level)'],
      [{ title: 'x', attempts: 3 }, '(top level)'],
      [{ title: 'x', gates: [['npm', 'test']] }, 'gates'],
      [{ title: 'x', bodyFile: '/etc/passwd' }, 'bodyFile'],
    ];
    for (const [body, field] of cases) {
      const reply = await json(server, 'POST', '/items', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(String(reply.body.error), JSON.stringify(body)).toContain(
        field === '(top level)' ? Object.keys(body as object).at(-1)! : field,
      );
      if (field !== '(top level)') expect(reply.body.field, JSON.stringify(body)).toBe(field);
    }
    const notJson = await request(server, 'POST', '/items', { raw: '{nope' });
    expect(notJson.status).toBe(400);
    const duplicate = await json(server, 'POST', '/items', {
      title: 'y',
      id: String(added.body.id),
    });
    expect(duplicate.status).toBe(400);
    expect(String(duplicate.body.error)).toMatch(/already queued/);
    const replaced = await json(server, 'POST', '/items', {
      title: 'Replaced',
      id: String(added.body.id),
      replace: true,
    });
    expect(replaced.status).toBe(201);
    expect(readQueue(root).items).toHaveLength(2);

    // What ralph add may set, the CLI to run and git mode included.
    const settings = { cli: 'codex', git: true, base: 'main', model: 'a-model', timeout: 600 };
    const chosen = await json(server, 'POST', '/items', { title: 'Settings', ...settings });
    expect(chosen.status).toBe(201);
    expect(readQueue(root).items.find((i) => i.id === chosen.body.id)).toMatchObject(settings);
    // Gates run commands on this machine: the refusal says so.
    const gates = await json(server, 'POST', '/items', { title: 'x', gates: [['npm', 'test']] });
    expect(String(gates.body.error)).toContain('gates are commands run on this machine');
  });

  it('refuses a body over the cap with 413 and leaves the queue as it was', async () => {
    const { root, server } = await served();
    const before = fs.readFileSync(stateFile(root, 'queue.json'), 'utf8');
    const reply = await request(server, 'POST', '/items', {
      raw: JSON.stringify({ title: 'big', body: 'x'.repeat(300 * 1024) }),
    });
    expect(reply.status).toBe(413);
    expect(fs.readFileSync(stateFile(root, 'queue.json'), 'utf8')).toBe(before);
  });

  it('lists, shows, retries, cancels and removes items under the queue lock', async () => {
    const { root, server } = await served();
    await ralph(root, ['add', 'First', '--id', 'first', '--body', 'secret text']);
    await ralph(root, ['add', 'Second', '--id', 'second', '--depends-on', 'first']);
    const list = await json(server, 'GET', '/items');
    expect((list.body.items as { id: string; body?: string }[]).map((i) => i.id)).toEqual([
      'first',
      'second',
    ]);
    expect((list.body.items as { body?: string }[])[0]?.body).toBeUndefined();
    expect((list.body.items as { waiting?: string }[])[1]?.waiting).toMatch(/first/);
    expect((await json(server, 'GET', '/items/first')).body.body).toBe('secret text');
    expect((await json(server, 'GET', '/items/nothing')).status).toBe(404);
    expect((await json(server, 'GET', '/items/bad%20id')).status).toBe(400);

    expect((await json(server, 'POST', '/items/first/cancel')).status).toBe(200);
    expect(readQueue(root).items[0]).toMatchObject({ id: 'first', status: 'cancelled' });
    const filtered = await json(server, 'GET', '/items?status=cancelled');
    expect((filtered.body.items as unknown[]).length).toBe(1);
    expect((await json(server, 'GET', '/items?status=sleeping')).status).toBe(400);
    expect((await json(server, 'POST', '/items/first/retry')).status).toBe(200);
    expect(readQueue(root).items[0]).toMatchObject({ id: 'first', status: 'pending', attempts: 0 });
    expect((await json(server, 'POST', '/items/first/retry')).status).toBe(400);
    expect((await json(server, 'POST', '/items/ghost/retry')).status).toBe(404);

    const blocked = await json(server, 'DELETE', '/items/first');
    expect(blocked.status).toBe(400);
    expect(String(blocked.body.error)).toMatch(/dependency of second/);
    expect((await json(server, 'DELETE', '/items/first?force=1')).status).toBe(200);
    expect(readQueue(root).items.map((i) => i.id)).toEqual(['second']);
  });

  it('takes a decision with the time its page was open, refusing a time that cannot be one', async () => {
    const { root, server } = await served();
    await ralph(root, ['add', 'Done', '--id', 'done']);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const ledger = path.join(root, 'state', 'decisions.jsonl');
    for (const reviewMs of [-1, 1.5, 'long', 90_000_000]) {
      const refused = await json(server, 'POST', '/items/done/accept', { reviewMs });
      expect(refused.status).toBe(400);
      expect(String(refused.body.error)).toMatch(/reviewMs/);
    }
    expect(fs.existsSync(ledger)).toBe(false);
    expect((await json(server, 'POST', '/items/done/accept', { reviewMs: 84_000 })).status).toBe(
      200,
    );
    const [line] = fs.readFileSync(ledger, 'utf8').trim().split('\n');
    expect(JSON.parse(line ?? '{}')).toMatchObject({ item: 'done', reviewMs: 84_000 });
    const report = (await ralph(root, ['report'])).stdout;
    expect(report).toMatch(
      /^ {2}your time: 1m24s a decision \(the median of 1 timed on an item's page\), 1m24s in all$/m,
    );
    expect(report).toMatch(/^ {2}NIGHT +ACCEPTED AT FIRST PASS +PER ACCEPTED CHANGE +YOUR TIME/m);
    expect(report).toMatch(/^ {2}\d{4}-\d\d-\d\d +1 of 1 +\$0\.0100 +1m24s$/m);
  });

  it('pauses (at once or after the current item) and resumes through the control files', async () => {
    const { root, server } = await served();
    const interrupt = stateFile(root, 'interrupt-request.txt');
    const paused = await json(server, 'POST', '/pause', { reason: 'lunch' });
    expect(paused).toMatchObject({ status: 200, body: { paused: 'now', runner: null } });
    expect(fs.readFileSync(interrupt, 'utf8')).toContain('lunch');
    expect((await json(server, 'POST', '/pause', { reason: 7 })).body.field).toBe('reason');
    const resumed = await json(server, 'POST', '/resume');
    expect(resumed.body).toMatchObject({ resumed: true });
    expect(fs.existsSync(interrupt)).toBe(false);
    // Without a runner to see it, "after the current item" is a pause now.
    expect((await json(server, 'POST', '/pause', { afterCurrent: true })).body.paused).toBe('now');
  });

  it('serves everything but the routes that change state when read-only', async () => {
    const { root, server } = await served(['--read-only']);
    await ralph(root, ['add', 'One', '--id', 'one']);
    expect((await json(server, 'GET', '/health')).body.readOnly).toBe(true);
    expect((await json(server, 'GET', '/items')).status).toBe(200);
    for (const [method, route] of [
      ['POST', '/items'],
      ['POST', '/items/one/cancel'],
      ['POST', '/items/one/retry'],
      ['DELETE', '/items/one'],
      ['POST', '/pause'],
      ['POST', '/resume'],
    ] as const) {
      const reply = await json(
        server,
        method,
        route,
        method === 'POST' ? { title: 'x' } : undefined,
      );
      expect(reply.status, `${method} ${route}`).toBe(403);
      expect(String(reply.body.error)).toMatch(/read-only/);
    }
    expect(readQueue(root).items).toHaveLength(1);
    expect(fs.existsSync(stateFile(root, 'interrupt-request.txt'))).toBe(false);
  });

  it('lists sessions with filters and paging, and serves each one, secrets masked', async () => {
    const secret = 'sk-test-SERVE-SECRET-0123456789';
    const { root, server } = await served([], { ANTHROPIC_API_KEY: secret });
    await ralph(root, ['add', 'Ok', '--id', 'ok', '--body', '#behave: ok']);
    await ralph(root, ['add', 'Leak', '--id', 'leak', '--body', '#behave: print-env']);
    await ralph(root, [
      'add',
      'Fails',
      '--id',
      'fails',
      '--max-attempts',
      '1',
      '--body',
      '#behave: is-error',
    ]);
    const run = await ralph(root, ['run', '--drain'], { ANTHROPIC_API_KEY: secret });
    expect(run.code, run.stderr).toBe(1);

    const all = await json(server, 'GET', '/sessions');
    expect(all.body.total).toBe(3);
    const page = await json(server, 'GET', '/sessions?limit=1&offset=1');
    expect((page.body.sessions as unknown[]).length).toBe(1);
    const failed = await json(server, 'GET', '/sessions?status=api_error');
    expect((failed.body.sessions as { itemId: string }[]).map((s) => s.itemId)).toEqual(['fails']);
    expect((await json(server, 'GET', '/sessions?item=ok')).body.total).toBe(1);
    expect((await json(server, 'GET', '/sessions?since=1h')).body.total).toBe(3);
    const badSince = await json(server, 'GET', '/sessions?since=yesterday-ish');
    expect(badSince).toMatchObject({ status: 400, body: { field: 'since' } });
    expect((await json(server, 'GET', '/sessions?limit=0')).body.field).toBe('limit');
    expect((await json(server, 'GET', '/sessions?status=fine')).body.field).toBe('status');

    const leak = (all.body.sessions as { itemId: string; sessionId: string }[]).find(
      (s) => s.itemId === 'leak',
    );
    const id = String(leak?.sessionId);
    const raw = fs.readFileSync(path.join(root, 'docs', 'sessions', `${id}.ndjson`), 'utf8');
    // The archive holds the agent's bytes as they were; nothing served does.
    expect(raw).toContain(secret);
    const record = await request(server, 'GET', `/sessions/${id}`);
    expect(record.status).toBe(200);
    expect(JSON.parse(record.body)).toMatchObject({ sessionId: id, itemId: 'leak' });
    const events = await request(server, 'GET', `/sessions/${id}/events`);
    const parsed = JSON.parse(events.body) as { events: { kind: string }[]; done: boolean };
    expect(parsed.done).toBe(true);
    expect(parsed.events.map((e) => e.kind)).toContain('result');
    const stream = await request(server, 'GET', `/sessions/${id}/raw`);
    expect(stream.headers['content-type']).toMatch(/ndjson/);
    expect(stream.body.length).toBeGreaterThan(raw.length / 2);
    for (const body of [record.body, events.body, stream.body]) expect(body).not.toContain(secret);
    expect(events.body).toContain('***');
    expect(stream.body).toContain('***');
    expect(
      (await request(server, 'GET', '/sessions/00000000-0000-4000-8000-00000000dead')).status,
    ).toBe(404);
    expect((await request(server, 'GET', '/sessions/..%2F..%2Fstate')).status).toBe(400);

    const report = await json(server, 'GET', '/report');
    expect(report.body).toMatchObject({
      byItem: expect.arrayContaining([
        expect.objectContaining({ key: 'fails', failed: 1 }),
      ]) as unknown,
    });
    expect((report.body.byDay as unknown[]).length).toBe(1);
  });

  it('loses no add when the API and the CLI add at once while a runner drains', async () => {
    const { root, server } = await served();
    const running = ralph(root, ['run', '--drain']);
    const api = Array.from({ length: 20 }, (_, i) =>
      json(server, 'POST', '/items', { title: `api ${i}`, id: `api-${i}`, body: '#behave: ok' }),
    );
    const cli = Array.from({ length: 20 }, (_, i) =>
      ralph(root, ['add', `cli ${i}`, '--id', `cli-${i}`, '--body', '#behave: ok']),
    );
    const replies = await Promise.all(api);
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201));
    expect((await Promise.all(cli)).map((r) => r.code)).toEqual(cli.map(() => 0));
    await running;
    // Items added after the drain ended are still pending: none is lost.
    const ids = readQueue(root)
      .items.map((i) => String(i.id))
      .sort();
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });
});

describe('ralph serve beside the runner', () => {
  it('is where ralph status says, and ralph run --serve starts one inside the runner', async () => {
    const { root, server } = await served();
    const status = await ralph(root, ['status']);
    expect(status.stdout).toContain(
      `Dashboard: ${server.base}/ (ralph serve, pid ${server.child.pid})`,
    );
    await server.stop();
    expect(fs.existsSync(stateFile(root, 'serve.json'))).toBe(false);
    expect((await ralph(root, ['status'])).stdout).not.toContain('Dashboard');

    const gate = path.join(root, 'gate');
    await ralph(root, ['add', 'Gated', '--id', 'gated', '--body', `#behave: gated gate=${gate}`]);
    const run = ralph(root, ['run', '--once', '--serve', '127.0.0.1:0']);
    await expect
      .poll(() => fs.existsSync(stateFile(root, 'serve.json')), { timeout: 10_000, interval: 20 })
      .toBe(true);
    const info = JSON.parse(fs.readFileSync(stateFile(root, 'serve.json'), 'utf8')) as {
      url: string;
    };
    const inside: Served = {
      ...server,
      base: info.url.replace(/\/$/, ''),
      token: fs.readFileSync(stateFile(root, 'serve-token'), 'utf8').trim(),
    };
    await expect
      .poll(
        async () => ((await json(inside, 'GET', '/health')).body.running as unknown[]).length > 0,
        {
          timeout: 10_000,
          interval: 20,
        },
      )
      .toBe(true);
    expect((await json(inside, 'GET', '/health')).body.runner).toMatchObject({ pid: process.pid });
    fs.writeFileSync(gate, '');
    const ended = await run;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toMatch(/open http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    // The server ends with the runner.
    expect(fs.existsSync(stateFile(root, 'serve.json'))).toBe(false);
    await expect(json(inside, 'GET', '/health')).rejects.toThrow();
  });
});
