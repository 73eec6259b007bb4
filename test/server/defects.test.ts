// Defects of the server found by using it as people do: each test failed before its fix.
import { afterEach, describe, expect, it } from 'vitest';
import { request, startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue } from '../support/workspace.js';

afterEach(stopServers);

const json = async (server: Served, method: string, route: string, body?: unknown) => {
  const reply = await request(server, method, route, { body });
  return { status: reply.status, body: reply.json() as Record<string, unknown> };
};

async function served(args: string[] = [], env: Record<string, string> = {}) {
  const root = await makeWorkspace({ claude: { command: [FAKE_CLAUDE] } });
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
