// The night plan on a workspace whose archive holds a night of known costs and a recorded
// usage window: `ralph plan` says what tonight will likely do, `ralph run` opens with it and
// starts the items in its order, the window's reserve holds the rest for the morning, and the
// morning report holds the night to the plan.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IndexEntry } from '../../src/archive/index-entry.js';
import { readIndex } from '../../src/archive/index.js';
import { PLAN_LIMIT } from '../../src/forecast/night-plan.js';
import { guardedWorkspace } from '../support/guarded.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

const MIN = 60_000;
/** A time as `ralph plan` says it: its date too when it is not today's. */
const TIME = String.raw`(?:\d{4}-\d\d-\d\d )?\d\d:\d\d`;

/** The night before: three sure sessions ($1.50), three unsure ones ($0.50), the window at 60%. */
function seedArchive(root: string, now: number, resetS: number): void {
  const lines: IndexEntry[] = [];
  const past = (i: number, model: string, costUsd: number, outcome: string, used?: number) => {
    const endedAt = new Date(now - 3 * 60 * MIN + i * MIN).toISOString();
    lines.push({
      sessionId: `00000000-0000-4000-8000-00000000000${i}`,
      itemId: `past-${i}`,
      itemTitle: 'past',
      status: outcome === 'success' ? 'completed' : 'failed',
      outcome,
      startedAt: endedAt,
      endedAt,
      durationMs: (model === 'sure' ? 20 : 10) * MIN,
      toolCalls: 4,
      costUsd,
      cli: 'claude',
      model,
      ...(used === undefined
        ? {}
        : { windows: { five_hour: { utilization: used, resetsAt: resetS } } }),
    });
  };
  past(1, 'sure', 1.5, 'success');
  past(2, 'sure', 1.5, 'success');
  past(3, 'sure', 1.5, 'success');
  past(4, 'unsure', 0.5, 'failed', 0.5);
  past(5, 'unsure', 0.5, 'failed', 0.55);
  past(6, 'unsure', 0.5, 'success', 0.6);
  const dir = path.join(root, 'docs', 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.jsonl'),
    lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
  );
}

describe('the night plan', () => {
  it('forecasts from the archive, opens the run, paces it, and is held to its outcome in the report', async () => {
    const now = Date.now();
    // The five-hour window resets in two and a half hours: past what this night waits for.
    const resetS = Math.floor(now / 1000) + 150 * 60;
    const { root, env } = await guardedWorkspace({
      run: { reserve: 0.2, maxLimitWait: '1h', limitMargin: 0 },
      defaults: { workDir: 'project', fallback: { clis: [] } },
    });
    seedArchive(root, now, resetS);
    // The queue's order: unsure, sure, sure, unsure, one priority. Each reports the window.
    const add = (id: string, model: string, cost: number, used: number) =>
      ralph(
        root,
        [
          'add',
          `Item ${id}`,
          '--id',
          id,
          '--model',
          model,
          '--body',
          `#behave: ok cost=${cost} utilization=${used} resetsAt=${resetS}`,
        ],
        env,
      );
    await add('u1', 'unsure', 0.5, 0.8);
    await add('s1', 'sure', 1.5, 0.75);
    await add('s2', 'sure', 1.5, 0.9);
    await add('u2', 'unsure', 0.5, 0.95);

    const planned = await ralph(root, ['plan'], env);
    expect(planned.code, planned.stderr).toBe(0);
    const lines = planned.stdout.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        String.raw`^Plan: 2 items tonight, likely \$2\.00, done about ${TIME} \(1 worker\)$`,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}-\s+claude\s+sure\s+2\s+\$1\.50\s+20m00s\s+3 past sessions, 3 succeeded$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}-\s+claude\s+unsure\s+2\s+\$0\.50\s+10m00s\s+3 past sessions, 1 succeeded$/,
      ),
    );
    expect(lines).toContain('Windows:');
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          String.raw`^  claude five_hour: 60% used, resets ${TIME}; room for \$2\.00 of work keeping 20% \(run\.reserve\): 2 items before it runs out about ${TIME}$`,
        ),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^Left for the morning: 2 items \(likely \$2\.00\)/),
    );
    const json = JSON.parse((await ralph(root, ['plan', '--json'], env)).stdout) as {
      items: { id: string; left?: string; estimate: { chance: number } }[];
    };
    expect(json.items.map((i) => [i.id, i.estimate.chance, i.left === undefined])).toEqual([
      ['s1', 0.8, true],
      ['u1', 0.4, true],
      ['s2', 0.8, false],
      ['u2', 0.4, false],
    ]);

    const run = await ralph(root, ['run', '--drain'], env);
    const events = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event: string; [k: string]: unknown });
    // The plan is the night's first word after it starts.
    expect(events.slice(0, 2).map((e) => e.event)).toEqual(['run_started', 'night_planned']);
    expect(events[1]).toMatchObject({ items: 2, costUsd: 2, left: 2, paced: true });
    // Paced: the likeliest to finish inside the window first, not the queue's order; then the
    // window reports 80% used, the reserve holds claude, and its reset is past what the night
    // waits for: the rest is left for the morning.
    expect(readSessions(root).map((s) => s.itemId)).toEqual(['s1', 'u1']);
    expect(events.find((e) => e.event === 'cli_held')).toMatchObject({ kind: 'reserve' });
    expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
      ['u1', 'done'],
      ['s1', 'done'],
      ['s2', 'pending'],
      ['u2', 'pending'],
    ]);
    // The session's window is archived with it, for the next night's plan.
    const { entries } = await readIndex(path.join(root, 'docs', 'sessions'));
    expect(entries.at(-1)?.windows).toEqual({ five_hour: { utilization: 0.8, resetsAt: resetS } });

    const report = await ralph(root, ['report'], env);
    expect(report.stdout).toMatch(
      /^ {2}items: 2 planned \(2 left for the morning\); 2 of them ran, 2 succeeded; 0 ran unplanned$/m,
    );
    expect(report.stdout).toMatch(/^ {2}cost: \$2\.00 planned, \$2\.00 spent \(1\.00x\)$/m);
    expect(report.stdout).toMatch(/^ {2}order: the planned items started in the plan's order$/m);
    const reportJson = JSON.parse((await ralph(root, ['report', '--json'], env)).stdout) as {
      plan: { outcome: { inPlanOrder: boolean; plannedSucceeded: number } };
    };
    expect(reportJson.plan.outcome).toMatchObject({ inPlanOrder: true, plannedSucceeded: 2 });
  });
});

describe('a queue past what a plan takes', () => {
  it(`plans the first ${PLAN_LIMIT} runnable items in the queue's order and says how many more wait`, async () => {
    const { root, env } = await guardedWorkspace();
    const at = Date.parse('2026-11-29T20:00:00Z');
    const items = Array.from({ length: PLAN_LIMIT + 3 }, (_, i) => ({
      id: `bulk-${i}`,
      title: `Bulk ${i}`,
      status: 'pending',
      attempts: 0,
      sessions: [],
      createdAt: new Date(at + i).toISOString(),
    }));
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify({ version: 1, items }));
    const json = JSON.parse((await ralph(root, ['plan', '--json'], env)).stdout) as {
      summary: { beyond?: number };
      items: { id: string }[];
    };
    expect(json.summary.beyond).toBe(3);
    expect(json.items).toHaveLength(PLAN_LIMIT);
    expect(json.items.at(-1)?.id).toBe(`bulk-${PLAN_LIMIT - 1}`);
    const text = await ralph(root, ['plan'], env);
    expect(text.stdout).toContain(
      `Beyond the plan: 3 more runnable items, after the first ${PLAN_LIMIT.toLocaleString('en')} in the queue's order`,
    );
  });
});
