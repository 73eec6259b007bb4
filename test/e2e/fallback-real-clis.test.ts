// A usage limit of one CLI, the night going on with another: the real claude against the fake
// Anthropic API meets a weekly limit mid-item, the real codex against the fake OpenAI API takes
// the item over from a handover, on the same branch; claude takes items again after its reset.
// The runner's clock is a fake one that moves when it waits (or when a test moves it).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readIndex } from '../../src/archive/index.js';
import {
  claudeEnv,
  startFakeAnthropic,
  usageLimitReply,
  type FakeAnthropic,
} from '../support/fake-anthropic.js';
import {
  inputItems,
  lastToolOutput,
  startFakeOpenAi,
  type FakeOpenAi,
} from '../support/fake-openai.js';
import { fakeTime } from '../support/fake-time.js';
import { filesAt, makeRepo } from '../support/git.js';
import { logEvents } from '../support/guarded.js';
import { runOnClock, startRunner } from '../support/runner.js';
import { waitUntil } from '../support/wait.js';
import { OPENAI_TEST_KEY, codexCommand } from '../support/real-codex.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  tempDir,
} from '../support/workspace.js';

let anthropic: FakeAnthropic | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await anthropic?.close();
  await openai?.close();
  anthropic = openai = undefined;
});

const HOUR = 3_600_000;
const OAUTH_TOKEN = 'sk-ant-oat01-test-dummy-token-0123456789abcdef';
/** The reset of the weekly limit the fake API reports (epoch seconds, in the future). */
const WEEKLY_RESET_S = Math.floor(Date.now() / 1000) + 5 * 24 * 3600;

/** The text of everything a Responses request carries (instructions and input). */
function requestText(body: Record<string, unknown>): string {
  return JSON.stringify([body.instructions, inputItems({ api: 'responses', body } as never)]);
}

async function night(
  anthropicReply: Parameters<typeof startFakeAnthropic>[0],
  openaiReply: Parameters<typeof startFakeOpenAi>[0],
  config: Record<string, unknown> = {},
) {
  anthropic = await startFakeAnthropic(anthropicReply);
  openai = await startFakeOpenAi(openaiReply);
  const repo = await makeRepo();
  const root = await makeWorkspace({
    clis: { claude: { command: [REAL_CLAUDE] }, codex: { command: codexCommand(openai) } },
    git: { enabled: true },
    run: { limitMargin: 0, rateLimitBackoff: '10m' },
    ...config,
    defaults: {
      workDir: repo,
      fallback: { clis: ['codex'] },
      // The test moves the fake clock days on while a session runs: no limit of its may end it.
      timeout: 30 * 24 * 3600,
      idleTimeout: 30 * 24 * 3600,
      ...(config.defaults as object),
    },
  });
  const home = await tempDir('ralph-home-');
  const { ANTHROPIC_API_KEY: _key, ...claude } = claudeEnv(anthropic, home);
  // A subscription (an OAuth token): its usage limits come as `rate_limit_event`s.
  const env = {
    ...claude,
    CLAUDE_CODE_OAUTH_TOKEN: OAUTH_TOKEN,
    OPENAI_API_KEY: OPENAI_TEST_KEY,
  };
  return { root, repo, env };
}

async function run(root: string, env: Record<string, string>, time: ReturnType<typeof fakeTime>) {
  const { code, output } = await runOnClock(root, env, time);
  return { code, output: output.text() };
}

// Two real CLIs a test, and the review commands after: room for a loaded machine.
describe('a fallback CLI when a usage limit holds the item’s own', { timeout: 180_000 }, () => {
  it('hands a weekly-limited claude item over to codex on the same branch, and gives claude the next item after its reset', async () => {
    const time = fakeTime(WEEKLY_RESET_S * 1000 - 5 * 24 * HOUR);
    let limited = false;
    const { root, repo, env } = await night(
      (request) => {
        const text = JSON.stringify(request.body);
        if (text.includes('Second item')) return { kind: 'text', text: 'Claude did the second.' };
        // The first item: claude writes a file, then meets its weekly limit.
        if (!text.includes('tool_result'))
          return {
            kind: 'tool_use',
            name: 'Write',
            // A key the agent should never have written: it never reaches the other vendor.
            input: { file_path: 'begun.txt', content: `begun by claude\n${OAUTH_TOKEN}\n` },
          };
        limited = true;
        return usageLimitReply(WEEKLY_RESET_S, 'seven_day');
      },
      (request) => {
        // codex finishes the first item; its reply moves the clock past claude's reset.
        if (lastToolOutput(request) !== undefined) {
          time.advanceTo(WEEKLY_RESET_S * 1000 + 60_000);
          return { kind: 'text', text: 'Finished what claude began.' };
        }
        return { kind: 'shell', command: "printf 'finished by codex\\n' > finished.txt" };
      },
    );
    for (const [title, id] of [
      ['First item', 'first'],
      ['Second item', 'second'],
    ] as const)
      expect((await ralph(root, ['add', title, '--id', id], env)).code).toBe(0);

    const { code, output } = await run(root, env, time);
    expect(code, output).toBe(0);
    expect(limited).toBe(true);
    const sessions = readSessions(root);
    expect(sessions.map((s) => [s.itemId, s.cli, (s.outcome as { kind: string }).kind])).toEqual([
      ['first', 'claude', 'rate_limited'],
      ['first', 'codex', 'success'],
      ['second', 'claude', 'success'],
    ]);
    const [claudeSession, codexSession] = sessions;
    // codex ran in the same worktree, on the item's branch, told why and from where.
    expect(codexSession?.workDir).toBe(claudeSession?.workDir);
    expect(codexSession?.fallback).toMatchObject({ cli: 'claude' });
    expect(String((codexSession?.fallback as { reason: string }).reason)).toMatch(
      /usage limit reached \(seven_day\)/,
    );
    // The first request codex sent holds the handover: who began, what it changed, its diff.
    const first = requestText(openai!.requests[0]!.body);
    expect(first).toContain('This item was begun by another agent: claude session');
    expect(first).toContain('Write begun.txt');
    expect(first).toContain('+begun by claude');
    expect(first).not.toContain(OAUTH_TOKEN);
    expect(readQueue(root).items.map((i) => [i.id, i.status, i.attempts])).toEqual([
      ['first', 'done', 1],
      ['second', 'done', 1],
    ]);
    expect(filesAt(repo, 'ralph/first')).toEqual(
      expect.arrayContaining(['begun.txt', 'finished.txt']),
    );
    const held = logEvents(root).find((e) => e.event === 'cli_held');
    expect(held).toMatchObject({ cli: 'claude', kind: 'limit' });
    expect(logEvents(root).some((e) => e.event === 'limit_wait')).toBe(false);

    // Every review command says which CLI ran the session, and that it was a fallback.
    const codexId = String(codexSession?.sessionId);
    const show = (await ralph(root, ['show', codexId], env)).stdout;
    expect(show).toMatch(/^Fallback: codex for claude \(claude: usage limit reached/m);
    const logs = (await ralph(root, ['logs', codexId], env)).stdout;
    expect(logs).toMatch(/── Fallback: codex for claude/);
    const report = (await ralph(root, ['report'], env)).stdout;
    expect(report).toMatch(/^Fallbacks: 1 session on another CLI/m);
    expect(report).toMatch(/^ {2}codex for claude: 1 session/m);
    const json = JSON.parse((await ralph(root, ['report', '--json'], env)).stdout) as {
      byCli: { key: string; costUsd: number }[];
      byDay: { costUsd: number }[];
    };
    const byCli = json.byCli.reduce((sum, g) => sum + g.costUsd, 0);
    const byDay = json.byDay.reduce((sum, g) => sum + g.costUsd, 0);
    expect(byCli).toBeCloseTo(byDay, 8);
  });

  it('goes on with codex when claude’s credit is exhausted, instead of pausing the night', async () => {
    const time = fakeTime(Date.now());
    const { root, env } = await night(
      () => ({
        kind: 'error',
        status: 400,
        type: 'invalid_request_error',
        message: 'Your credit balance is too low to access the Anthropic API.',
      }),
      () => ({ kind: 'text', text: 'Done on codex.' }),
    );
    // An API key, not a subscription: credit is what runs out.
    const { CLAUDE_CODE_OAUTH_TOKEN: _token, ...keyed } = {
      ...env,
      ANTHROPIC_API_KEY: 'sk-ant-test-dummy-key-0123456789',
    };
    for (const id of ['one', 'two']) await ralph(root, ['add', `Item ${id}`, '--id', id], keyed);
    const { code, output } = await run(root, keyed, time);
    expect(code, output).toBe(0);
    expect(
      readSessions(root).map((s) => [s.itemId, s.cli, (s.outcome as { kind: string }).kind]),
    ).toEqual([
      ['one', 'claude', 'credit_exhausted'],
      ['one', 'codex', 'success'],
      // Held for the rest of the run: the second item goes straight to codex.
      ['two', 'codex', 'success'],
    ]);
    expect(fs.existsSync(path.join(root, 'state', 'interrupt-request.txt'))).toBe(false);
    expect(logEvents(root).find((e) => e.event === 'cli_held')).toMatchObject({
      cli: 'claude',
      kind: 'credit',
    });
    // A session that did nothing hands over nothing, and says so.
    expect(requestText(openai!.requests[0]!.body)).toContain(
      'before doing any of it: there is nothing to hand over',
    );
  });

  it('waits for a limit that resets soon instead of falling back', async () => {
    const time = fakeTime(Date.now());
    const soon = Math.floor(Date.now() / 1000) + 5 * 60;
    let limited = false;
    const { root, env } = await night(
      () => {
        if (limited) return { kind: 'text', text: 'Back after the five-hour window.' };
        limited = true;
        return usageLimitReply(soon, 'five_hour');
      },
      () => ({ kind: 'text', text: 'codex should not be asked.' }),
    );
    await ralph(root, ['add', 'Limited soon', '--id', 'soon'], env);
    const { code, output } = await run(root, env, time);
    expect(code, output).toBe(0);
    expect(readSessions(root).map((s) => [s.cli, (s.outcome as { kind: string }).kind])).toEqual([
      ['claude', 'rate_limited'],
      ['claude', 'success'],
    ]);
    expect(openai!.requests).toHaveLength(0);
    const wait = logEvents(root).find((e) => e.event === 'limit_wait');
    expect(wait).toMatchObject({ until: new Date(soon * 1000).toISOString() });
  });

  it('waits for the earlier reset when the fallback is limited too', async () => {
    const time = fakeTime(WEEKLY_RESET_S * 1000 - 5 * 24 * HOUR);
    let codexLimited = false;
    const { root, env } = await night(
      () => usageLimitReply(WEEKLY_RESET_S, 'seven_day'),
      () => {
        if (codexLimited) return { kind: 'text', text: 'Done after the backoff.' };
        codexLimited = true;
        return {
          kind: 'error',
          status: 429,
          message: 'Rate limit reached',
          type: 'rate_limit_exceeded',
        };
      },
    );
    await ralph(root, ['add', 'Limited twice', '--id', 'twice'], env);
    const { code, output } = await run(root, env, time);
    expect(code, output).toBe(0);
    expect(readSessions(root).map((s) => [s.cli, (s.outcome as { kind: string }).kind])).toEqual([
      ['claude', 'rate_limited'],
      ['codex', 'rate_limited'],
      ['codex', 'success'],
    ]);
    // codex's hold (its 10-minute backoff) ends days before claude's weekly one: that is waited.
    const waits = logEvents(root).filter((e) => e.event === 'limit_wait');
    expect(waits).toHaveLength(1);
    expect(Date.parse(String(waits[0]?.until))).toBeLessThan(WEEKLY_RESET_S * 1000 - 4 * 24 * HOUR);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('keeps run.reserve of the weekly window for the morning: no claude item starts once claude reports it used, and status says why', async () => {
    const { root, env } = await night(
      () => ({
        kind: 'text',
        text: 'Done, with most of the week used.',
        headers: {
          'anthropic-ratelimit-unified-status': 'allowed_warning',
          'anthropic-ratelimit-unified-reset': String(WEEKLY_RESET_S),
          'anthropic-ratelimit-unified-representative-claim': 'seven_day',
          'anthropic-ratelimit-unified-7d-utilization': '0.85',
          'anthropic-ratelimit-unified-7d-reset': String(WEEKLY_RESET_S),
          'anthropic-ratelimit-unified-7d-surpassed-threshold': '0.75',
        },
      }),
      () => ({ kind: 'text', text: 'codex should not be asked.' }),
      { run: { reserve: 0.2, limitMargin: 0 }, defaults: { fallback: { clis: [] } } },
    );
    await ralph(root, ['add', 'Spends the week', '--id', 'spends'], env);
    await ralph(root, ['add', 'Waits for the reset', '--id', 'waits'], env);
    const runner = startRunner(root, env);
    try {
      const state = path.join(root, 'state');
      await waitUntil(
        state,
        () => logEvents(root).some((e) => e.event === 'limit_wait'),
        60_000,
        'the night holding claude',
      );
      const held = logEvents(root).find((e) => e.event === 'cli_held');
      expect(held).toMatchObject({ cli: 'claude', kind: 'reserve' });
      expect(String(held?.reason)).toMatch(
        /claude has used 85% of its seven_day window; run.reserve keeps 20% of it/,
      );
      const status = await ralph(root, ['status'], env);
      expect(status.stdout).toMatch(
        /^Held: +claude, no item starts on it until \S+: the wait above$/m,
      );
      expect(status.stdout).toMatch(
        /^Waiting: claude has used 85% of its seven_day window; run.reserve keeps 20% of it for the morning, until /m,
      );
      const json = JSON.parse((await ralph(root, ['status', '--json'], env)).stdout) as {
        heldClis?: { cli: string; kind: string; until?: string }[];
      };
      expect(json.heldClis).toEqual([
        expect.objectContaining({
          cli: 'claude',
          kind: 'reserve',
          until: new Date(WEEKLY_RESET_S * 1000).toISOString(),
        }),
      ]);
      expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
        ['spends', 'done'],
        ['waits', 'pending'],
      ]);
      // The window the real claude reported is archived with its session, for the night plan.
      const { entries } = await readIndex(path.join(root, 'docs', 'sessions'));
      expect(entries[0]?.windows).toEqual({
        seven_day: { utilization: 0.85, resetsAt: WEEKLY_RESET_S },
      });
    } finally {
      runner.child.kill('SIGTERM');
      await runner.exited;
    }
    // The hold outlives the runner until the window resets: the next run spares claude too.
    const kept = JSON.parse(fs.readFileSync(path.join(root, 'state', 'holds.json'), 'utf8')) as {
      holds: unknown[];
    };
    expect(kept.holds).toEqual([expect.objectContaining({ cli: 'claude', kind: 'reserve' })]);
  });
});
