// Defects of the server found by using it as people do: each test failed before its fix.
import { afterEach, describe, expect, it } from 'vitest';
import { request, startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue } from '../support/workspace.js';
import { logEvents } from '../support/guarded.js';

afterEach(stopServers);

const json = async (server: Served, method: string, route: string, body?: unknown) => {
  const reply = await request(server, method, route, { body });
  return { status: reply.status, body: reply.json() as Record<string, unknown> };
};

async function served(args: string[] = [], env: Record<string, string> = {}) {
  const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
  return { root, server: await startServe(root, args, env) };
}

describe('the API on a done item', () => {
  it('retries or cancels it only with force=1', async () => {
    const { root, server } = await served();
    await ralph(root, ['add', 'Done', '--id', 'd']);
    await ralph(root, ['run', '--once']);
    const retry = await json(server, 'POST', '/items/d/retry');
    expect(retry.status).toBe(400);
    expect(String(retry.body.error)).toMatch(/is done/);
    expect((await json(server, 'POST', '/items/d/cancel')).status).toBe(400);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
    expect((await json(server, 'POST', '/items/d/retry?force=1')).status).toBe(200);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending' });
  });
});

describe('a server others can reach', () => {
  it('tells ralph run --serve to set RALPH_SERVE_TOKEN, and names the variable when it is empty', async () => {
    const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
    const run = await ralph(root, ['run', '--once', '--serve', '0.0.0.0:0']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/set RALPH_SERVE_TOKEN/);
    const empty = await ralph(root, ['serve', '--port', '0'], { RALPH_SERVE_TOKEN: '' });
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/RALPH_SERVE_TOKEN: at least \d+ characters \(it is empty\)/);
    expect(empty.stderr).not.toMatch(/--token/);
  });

  it('takes changes from the origin an HTTPS proxy serves it at (--public-origin)', async () => {
    const origin = 'https://night.example.test';
    const headers = { origin, host: 'night.example.test' };
    const plain = await served();
    const refused = await request(plain.server, 'POST', '/items', {
      body: { title: 'From the proxy' },
      headers,
    });
    expect(refused.status).toBe(403);
    const proxied = await served(['--public-origin', origin]);
    const added = await request(proxied.server, 'POST', '/items', {
      body: { title: 'From the proxy' },
      headers,
    });
    expect(added.status, added.body).toBe(201);
    const other = await request(proxied.server, 'POST', '/items', {
      body: { title: 'From elsewhere' },
      headers: { origin: 'https://evil.example.test', host: 'night.example.test' },
    });
    expect(other.status).toBe(403);
  });

  it('shows a browser without the token a page saying how to get in', async () => {
    const { server } = await served();
    const page = await request(server, 'GET', '/', {
      headers: { authorization: '', accept: 'text/html,application/xhtml+xml' },
    });
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('needs its token');
    expect(page.body).toContain('state/serve-token');
    const api = await request(server, 'GET', '/items', { headers: { authorization: '' } });
    expect(api.headers['content-type']).toMatch(/application\/json/);
  });
});

describe('the API on bad requests', () => {
  it('says what is wrong: 405 with the methods, bounded numbers and times, a 431 with a body', async () => {
    const { server } = await served();
    const method = await json(server, 'PUT', '/items');
    expect(method.status).toBe(405);
    expect(String(method.body.error)).toMatch(/PUT is not a method of \/items: GET, POST/);
    const limit = await json(server, 'GET', '/sessions?limit=abc');
    expect(limit.status).toBe(400);
    expect(String(limit.body.error)).toBe(
      'the query is invalid: limit: a whole number from 1 to 1,000',
    );
    const since = await json(server, 'GET', '/sessions?since=99999999999d');
    expect(since.status).toBe(400);
    expect(String(since.body.error)).toMatch(/at most 100 years back/);
    const priority = await json(server, 'POST', '/items', { title: 'x', priority: 1e12 });
    expect(priority.status).toBe(400);
    expect(String(priority.body.error)).toMatch(/priority .*-1,000,000 to 1,000,000/);
    const title = await json(server, 'POST', '/items', { title: 'y'.repeat(201) });
    expect(title.status).toBe(400);
    const bidi = await json(server, 'POST', '/items', { title: 'Fix \u202Egnp.exe' });
    expect(bidi.status).toBe(400);
    const huge = await request(server, 'GET', '/health', {
      headers: { 'x-big': 'z'.repeat(40_000) },
    });
    expect(huge.status).toBe(431);
    expect(huge.json()).toEqual({ error: 'the request headers are too large' });
  });
});

describe('changes made over HTTP', () => {
  it('are written to the runner log with the address that made them', async () => {
    const { root, server } = await served();
    expect(
      (await json(server, 'POST', '/items', { title: 'From the API', id: 'api' })).status,
    ).toBe(201);
    expect((await json(server, 'POST', '/items/api/cancel')).status).toBe(200);
    expect((await json(server, 'POST', '/items/api/retry')).status).toBe(200);
    expect((await json(server, 'DELETE', '/items/api')).status).toBe(200);
    expect((await json(server, 'POST', '/pause', { reason: 'lunch' })).status).toBe(200);
    expect((await json(server, 'POST', '/resume')).status).toBe(200);
    const actions = logEvents(root).filter((e) => e.event === 'http_action');
    expect(actions.map((e) => [e.action, e.items])).toEqual([
      ['add', ['api']],
      ['cancel', ['api']],
      ['retry', ['api']],
      ['remove', ['api']],
      ['pause', undefined],
      ['resume', undefined],
    ]);
    for (const e of actions) expect(String(e.from)).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
