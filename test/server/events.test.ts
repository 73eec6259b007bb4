// Live events of `ralph serve` (GET /events, GET /sessions/:id/events?follow=1) while fake
// agents and the real claude CLI run: order, ids, resumption with Last-Event-ID (from the files,
// across log rotation and a restart of the server), heartbeats.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCursor, compareCursors } from '../../src/server/cursor.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { SseClient, startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, addInOwnDir, makeWorkspace, ralph } from '../support/workspace.js';

afterEach(stopServers);
closeFakeApiAfterEach();

const clients: SseClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

async function open(served: Served, route = '/events', lastEventId?: string) {
  const client = await SseClient.open(served, route, lastEventId);
  clients.push(client);
  return client;
}

const isEvent = (name: string) => (events: { event: string; data: string }[]) =>
  events.some(
    (e) => e.event === 'runner' && (JSON.parse(e.data) as { event: string }).event === name,
  );
const hasText = (text: string) => (events: { event: string; data: string }[]) =>
  events.some((e) => e.event === 'stream' && e.data.includes(text));

/** The ids of a client's events increase strictly, in the order of (log, offset, stream). */
function expectIncreasingIds(client: SseClient): void {
  const ids = client.identified().map((e) => parseCursor(e.id));
  expect(ids.every((id) => id !== undefined)).toBe(true);
  for (let i = 1; i < ids.length; i++)
    expect(compareCursors(ids[i - 1]!, ids[i]!), `${i}`).toBeLessThan(0);
}

/** What an event is, apart from its id. */
const identity = (e: { event: string; data: Record<string, unknown> }) =>
  `${e.event} ${JSON.stringify(e.data)}`;

async function gatedNight(config: Record<string, unknown> = {}) {
  const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } }, ...config });
  const gate = path.join(root, 'gate');
  return { root, gate };
}

describe('GET /events', () => {
  it('sends the runner log and the session stream in order, with increasing ids', async () => {
    const { root, gate } = await gatedNight();
    await ralph(root, ['add', 'Gated', '--id', 'gated', '--body', `#behave: gated gate=${gate}`]);
    const served = await startServe(root);
    const client = await open(served);
    await client.until((events) => events.some((e) => e.event === 'status'), 'the first status');
    const run = ralph(root, ['run', '--once']);
    await client.until(hasText('before the gate'), 'the first assistant message');
    fs.writeFileSync(gate, '');
    await client.until(isEvent('run_finished'), 'the end of the run');
    expect((await run).code).toBe(0);
    expectIncreasingIds(client);
    const sequence = client
      .identified()
      .map((e) => (e.event === 'runner' ? String(e.data.event) : `stream:${String(e.data.kind)}`));
    expect(sequence).toEqual([
      'run_started',
      'night_planned',
      'session_started',
      'stream:init',
      'stream:assistant',
      'stream:assistant',
      'stream:result',
      'session_ended',
      'run_finished',
    ]);
    const stream = client.identified().filter((e) => e.event === 'stream');
    expect(stream.every((e) => e.data.item === 'gated')).toBe(true);
    // The status follows the night without being asked.
    await client.until(
      (events) =>
        events.some(
          (e) =>
            e.event === 'status' &&
            (JSON.parse(e.data) as { queue: { done: number } }).queue.done === 1,
        ),
      'a status with the item done',
    );
  });

  it('follows every running session of a run with workers, and resumes from an id taken while two were open', async () => {
    const { root, gate } = await gatedNight();
    for (const id of ['left', 'right'])
      await addInOwnDir(root, id, `#behave: gated gate=${gate} tool=1`);
    const served = await startServe(root);
    const live = await open(served);
    await live.until((events) => events.some((e) => e.event === 'status'), 'the first status');
    const run = ralph(root, ['run', '--drain', '--workers', '2']);
    const bothTalking = (events: { event: string; data: string }[]) =>
      ['left', 'right'].every((item) =>
        events.some(
          (e) =>
            e.event === 'stream' &&
            e.data.includes(`"item":"${item}"`) &&
            e.data.includes('before the gate'),
        ),
      );
    await live.until(bothTalking, 'both sessions talking');
    // An id taken while both sessions were open carries an offset for each.
    const middle = live.identified().at(-1)!.id;
    expect(parseCursor(middle)?.streams).toHaveLength(2);
    fs.writeFileSync(gate, '');
    expect((await run).code).toBe(0);
    await live.until(isEvent('run_finished'), 'the end of the run');
    expectIncreasingIds(live);
    for (const item of ['left', 'right']) {
      const kinds = live
        .identified()
        .filter((e) => e.event === 'stream' && e.data.item === item)
        .map((e) => String(e.data.kind));
      expect(kinds, item).toEqual([
        'init',
        'assistant',
        'tool_results',
        'assistant',
        'assistant',
        'result',
      ]);
    }
    // Resumed from the middle: exactly what came after it, from the files.
    const back = await open(served, '/events', middle);
    await back.until(isEvent('run_finished'), 'what was missed');
    const all = live.identified().map(identity);
    const got = back.identified().map(identity);
    expect(got.length).toBeGreaterThan(0);
    // The files hold each source in order; between two sessions' streams no order exists, so
    // the resumed read may interleave them otherwise than the live one did.
    const missed = all.slice(all.length - got.length);
    expect([...got].sort()).toEqual([...missed].sort());
    const sources = {
      runner: (e: string) => e.startsWith('runner '),
      left: (e: string) => e.startsWith('stream ') && e.includes('"item":"left"'),
      right: (e: string) => e.startsWith('stream ') && e.includes('"item":"right"'),
    };
    for (const [source, of] of Object.entries(sources))
      expect(got.filter(of), source).toEqual(missed.filter(of));
  });

  it('resumes a client from Last-Event-ID with exactly what it missed, across log rotation and a server restart', async () => {
    // A log that rotates once during the night.
    const { root, gate } = await gatedNight({ log: { maxBytes: 4000 } });
    for (const id of ['one', 'two', 'three'])
      await ralph(root, ['add', id, '--id', id, '--body', '#behave: ok']);
    await ralph(root, [
      'add',
      'Gated',
      '--id',
      'gated',
      '--priority',
      '-1',
      '--body',
      `#behave: gated gate=${gate}`,
    ]);
    let served = await startServe(root);
    const early = await open(served);
    expect((await ralph(root, ['run', '--once'])).code).toBe(0);
    await early.until(isEvent('run_finished'), 'the first run');
    const missedFrom = early.identified().at(2)!.id;
    early.close();

    // The night goes on while the client is away, and the server restarts mid-session.
    const night = ralph(root, ['run', '--drain']);
    const watcher = await open(served);
    await watcher.until(hasText('before the gate'), 'the gated session');
    await served.stop();
    served = await startServe(root);
    fs.writeFileSync(gate, '');
    expect((await night).code).toBe(0);
    const log = `${root}/state/iteration.log`;
    expect(fs.existsSync(`${log}.1`), `${fs.statSync(log).size} bytes`).toBe(true);
    // The client's id names the generation that is now the rotated file.
    const [firstLine] = fs.readFileSync(`${log}.1`, 'utf8').split('\n');
    const rotatedFirst = JSON.parse(firstLine ?? '{}') as { time: string };
    expect(parseCursor(missedFrom)?.log).toBe(Date.parse(rotatedFirst.time));

    const everything = await open(served, '/events', '0-0-0');
    const finished = (events: { event: string; data: string }[]) =>
      events.some(
        (e) =>
          e.event === 'runner' &&
          e.data.includes('"run_finished"') &&
          e.data.includes('"sessions":3'),
      );
    await everything.until(finished, 'the replay of the files');
    const back = await open(served, '/events', missedFrom);
    await back.until(finished, 'what was missed');
    expectIncreasingIds(back);
    const got = back.identified().map(identity);
    expect(new Set(got).size).toBe(got.length);
    // What came before the id is not sent again; everything after it is, in order.
    for (const event of early.identified().slice(0, 3).map(identity))
      expect(got).not.toContain(event);
    const all = everything.identified().map(identity);
    expect(all.slice(all.length - got.length)).toEqual(got);
    expect(got.some((e) => e.includes('after the gate'))).toBe(true);
    expect(got.filter((e) => e.includes('"session_started"'))).toHaveLength(3);
  });

  it('keeps an idle stream open with heartbeat comments', async () => {
    const root = await makeWorkspace();
    const served = await startServe(root, ['--heartbeat', '100ms']);
    const client = await open(served);
    await client.until(() => client.comments >= 3, 'three heartbeats');
  });
});

describe('GET /sessions/:id/events?follow=1', () => {
  it('follows one session like ralph logs --follow, to its end', async () => {
    const { root, gate } = await gatedNight();
    await ralph(root, ['add', 'Gated', '--id', 'gated', '--body', `#behave: gated gate=${gate}`]);
    const served = await startServe(root);
    const night = await open(served);
    const run = ralph(root, ['run', '--once']);
    await night.until(hasText('before the gate'), 'the session');
    const session = String(
      night.identified().find((e) => e.data.event === 'session_started')?.data.session,
    );
    const follow = await open(served, `/sessions/${session}/events?follow=1`);
    await follow.until(hasText('before the gate'), 'the session so far');
    fs.writeFileSync(gate, '');
    await follow.until((events) => events.some((e) => e.event === 'end'), 'the end');
    await run;
    const kinds = follow.identified().map((e) => e.data.kind);
    expect(kinds).toEqual(['init', 'assistant', 'assistant', 'result']);
    // A reconnect from an offset gets the rest.
    const second = follow.identified()[1]!.id;
    const rest = await open(served, `/sessions/${session}/events?follow=1`, second);
    await rest.until((events) => events.some((e) => e.event === 'end'), 'the end again');
    expect(rest.identified().map((e) => e.data.kind)).toEqual(['assistant', 'result']);
  });
});

describe('ralph serve with the real claude CLI', () => {
  it('streams what the real CLI says, as it says it', async () => {
    const { root, env } = await realClaudeWorkspace(() => ({
      kind: 'text',
      text: 'Hello from the fake API.',
    }));
    await ralph(root, ['add', 'Say hello', '--id', 'hello', '--body', 'Greet the user.'], env);
    const served = await startServe(root, [], env);
    const client = await open(served);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    await client.until(isEvent('run_finished'), 'the end of the run');
    expectIncreasingIds(client);
    const stream = client.identified().filter((e) => e.event === 'stream');
    expect(stream[0]?.data).toMatchObject({ kind: 'init', item: 'hello' });
    expect(stream.some((e) => JSON.stringify(e.data).includes('Hello from the fake API.'))).toBe(
      true,
    );
    expect(stream.at(-1)?.data).toMatchObject({ kind: 'result', result: { subtype: 'success' } });
    const ended = client.identified().find((e) => e.data.event === 'session_ended');
    expect(ended?.data).toMatchObject({ outcome: 'success', item: 'hello' });
    // Nothing served holds the fake key the CLI was given.
    const key = env.ANTHROPIC_API_KEY ?? '';
    expect(key.length).toBeGreaterThan(4);
    for (const e of client.events) expect(e.data).not.toContain(key);
  });
});
