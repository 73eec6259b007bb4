// Every route's answer against the schema GET /openapi.json gives it (src/server/responses.ts),
// on a workspace after a night in git mode with gates: a schema that drifts from what the
// server sends fails here. The schemas are strict: a field the server sends that the schema
// does not name fails as surely as one it names and the server leaves out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from '../../src/lib/zod.js';
import { ROUTES } from '../../src/server/openapi.js';
import { ErrorAnswer, HealthAnswer, StreamEventAnswer } from '../../src/server/responses.js';
import { makeRepo } from '../support/git.js';
import { request, SseClient, startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readSessions } from '../support/workspace.js';

let served: Served;
let root: string;
/** A session of the item whose gates ran. */
let gated: string;
/** A session with tool calls, their results and a refusal. */
let refused: string;

beforeAll(async () => {
  root = await makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
  });
  const repo = await makeRepo();
  const add = (args: string[]) => ralph(root, ['add', ...args]);
  await add([
    'Add the feature file',
    '--id',
    'feature',
    '--work-dir',
    repo,
    '--git',
    '--gate',
    'git --version',
    '--body',
    '#behave: work commit=1',
  ]);
  await add(['Broken gate', '--id', 'broken', '--max-attempts', '1', '--gate', 'false']);
  await add(['Refused', '--id', 'refused', '--body', '#behave: denied']);
  expect((await ralph(root, ['run', '--drain', '--max-cost', '5'])).code).toBe(1);
  await add(['Later', '--id', 'later', '--not-before', '2099-01-01T00:00:00Z']);
  await add(['After', '--id', 'after', '--depends-on', 'later']);
  const session = readSessions(root).find((s) => s.itemId === 'feature');
  gated = String(session?.sessionId);
  refused = String(readSessions(root).find((s) => s.itemId === 'refused')?.sessionId);
  served = await startServe(root);
});

afterAll(stopServers);

/** A route's path with the ids of this workspace. */
const concrete = (route: string, item = 'feature') =>
  route.replace('{id}', route.startsWith('/items') ? item : gated);

async function answer(method: string, route: string, body?: unknown) {
  const reply = await request(served, method.toUpperCase(), route, { body });
  return { ...reply, parsed: reply.body === '' ? undefined : reply.json() };
}

/** Parses with the schema; the failure names the route and the fields at fault. */
function holds(schema: z.ZodType, value: unknown, what: string): void {
  const result = schema.safeParse(value);
  expect(result.success ? [] : result.error.issues, what).toEqual([]);
}

describe('what every route answers', () => {
  it('has a schema for each route: JSON, server-sent events or text', () => {
    for (const [path, methods] of Object.entries(ROUTES))
      for (const [method, op] of Object.entries(methods))
        expect(
          op.answer !== undefined || op.events !== undefined || op.text !== undefined,
          `${method} ${path}`,
        ).toBe(true);
  });

  it('answers each GET with what its schema says', async () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(ROUTES)) {
      const op = methods.get;
      if (op?.answer === undefined) continue;
      const reply = await answer('get', concrete(path));
      expect(reply.status, path).toBe(200);
      holds(op.answer, reply.parsed, `GET ${path}`);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(11);
    // Each kind of item a night leaves: done with a branch, failed, waiting for a time or another.
    const items = (await answer('get', '/items')).parsed as { items: { waiting?: string }[] };
    expect(items.items.filter((i) => i.waiting !== undefined)).toHaveLength(2);
    const night = (await answer('get', '/night')).parsed as { failures: unknown[] };
    expect(night.failures.length).toBeGreaterThan(0);
  });

  it('answers the text routes with their media types', async () => {
    for (const [path, methods] of Object.entries(ROUTES)) {
      const op = methods.get;
      if (op?.text === undefined) continue;
      const reply = await request(served, 'GET', concrete(path));
      expect(reply.status, path).toBe(200);
      expect(reply.headers['content-type'], path).toContain(op.text);
    }
  });

  it('answers each change with what its schema says', async () => {
    const ops = ROUTES;
    const calls: [string, string, string, unknown?][] = [
      ['post', '/pause', '/pause', { reason: 'checking the answers' }],
      ['post', '/resume', '/resume', {}],
      ['post', '/items', '/items', { title: 'Added over HTTP', id: 'added' }],
      ['post', '/items/{id}/retry', '/items/broken/retry'],
      ['post', '/items/{id}/cancel', '/items/added/cancel'],
      ['delete', '/items/{id}', '/items/added'],
    ];
    for (const [method, path, route, body] of calls) {
      const op = ops[path]?.[method];
      const reply = await answer(method, route, body);
      expect(reply.status, `${method} ${route}: ${reply.body}`).toBe(op?.status ?? 200);
      holds(op?.answer as z.ZodType, reply.parsed, `${method} ${path}`);
    }
  });

  it('refuses with the error schema', async () => {
    for (const [method, route, status] of [
      ['get', '/items/no-such-item', 404],
      ['get', '/sessions/not-a-uuid', 400],
      ['put', '/items', 405],
      ['post', '/items', 400],
    ] as const) {
      const reply = await answer(method, route, method === 'post' ? { title: 1 } : undefined);
      expect(reply.status, route).toBe(status);
      holds(ErrorAnswer, reply.parsed, `${method} ${route}`);
    }
  });

  it('sends server-sent events whose data the schemas describe', async () => {
    const follow = await SseClient.open(served, `/sessions/${refused}/events?follow=1`);
    await follow.until((events) => events.some((e) => e.event === 'end'), 'the end');
    const stream = follow.events.filter((e) => e.event === 'stream');
    const kinds = stream.map((e) => (JSON.parse(e.data) as { kind: string }).kind);
    expect(kinds).toEqual(expect.arrayContaining(['init', 'assistant', 'tool_results', 'result']));
    for (const event of stream) holds(StreamEventAnswer, JSON.parse(event.data), 'stream event');
    follow.close();
    const night = await SseClient.open(served, '/events');
    await night.until((events) => events.some((e) => e.event === 'status'), 'the status');
    const status = night.events.find((e) => e.event === 'status');
    holds(HealthAnswer, JSON.parse(String(status?.data)), 'status event');
    night.close();
  });
});
