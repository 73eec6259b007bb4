// One definition of each count: on one workspace, the report, status, the inbox, the run's
// closing line and the dashboard's night agree on what was done, failed, reviewed, landed and
// how many sessions it took.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addWithCriterion as add, landingWorkspace } from '../support/landing.js';
import { request, startServe, stopServers } from '../support/serve.js';
import { ralph, tempDir } from '../support/workspace.js';

afterEach(stopServers);

describe('the counts of one night', () => {
  it('agree between the report, status, the inbox, the closing line and the dashboard', async () => {
    const { root } = await landingWorkspace({}, { review: { enabled: true } });
    const env = { FAKE_CLAUDE_STATE: await tempDir('ralph-fake-state-') };
    await add(root, 'ok', '#behave: work commit=1\n#review: approve');
    await add(root, 'again', '#behave: work commit=1\n#review: sequence steps=changes,approve');
    await add(root, 'prose', '#behave: work commit=1\n#review: prose');
    await add(root, 'broken', '#behave: work commit=1', '--gate', 'false', '--max-attempts', '1');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);

    const status = JSON.parse((await ralph(root, ['status', '--json'])).stdout) as {
      queue: Record<string, number>;
      budget: { run: { iterations: number } };
      stalled: { id: string }[];
    };
    expect(status.queue).toMatchObject({ done: 2, failed: 1, reviewing: 1 });
    expect(status.stalled.map((s) => s.id)).toEqual(['prose']);

    const report = JSON.parse((await ralph(root, ['report', '--json'])).stdout) as {
      reviews: { reviews: number; approved: number; changesRequested: number; failed: number };
      landing: { landed: number; waiting: number; notLanded: { itemId: string }[] };
    };
    const { reviews, landing } = report;
    // 'ok' and 'again' approved, 'again' asked for changes once, 'prose' gave no verdict.
    expect(reviews).toMatchObject({ approved: 2, changesRequested: 1 });
    expect(reviews.failed).toBeGreaterThanOrEqual(1);
    expect(reviews.approved + reviews.changesRequested + reviews.failed).toBe(reviews.reviews);
    // Landed: the two done; not landed: every item meant to land that did not.
    expect(landing.landed).toBe(status.queue.done);
    expect(landing.notLanded.map((n) => n.itemId).sort()).toEqual(['broken', 'prose']);

    // The closing line: the authors' sessions and the reviewers' are every session paid for.
    const finished = fs
      .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .findLast((entry) => entry.event === 'run_finished') as {
      sessions: number;
      reviews: number;
      unreviewed: number;
      failed: number;
    };
    expect(finished.sessions + finished.reviews).toBe(status.budget.run.iterations);
    expect(finished.reviews).toBe(reviews.reviews);
    expect(finished.unreviewed).toBe(status.stalled.length);
    expect(finished.failed).toBe(status.queue.failed);

    // The inbox: everything that waits on a person, once.
    const inbox = JSON.parse((await ralph(root, ['review', '--json'])).stdout) as { id: string }[];
    expect(inbox.map((r) => r.id).sort()).toEqual(['again', 'broken', 'ok', 'prose']);

    // The dashboard's night says what the board's columns hold.
    const served = await startServe(root, ['--read-only']);
    const night = (await request(served, 'GET', '/night')).json() as {
      done: number;
      failed: number;
      sessions: number;
      landing: { landed: number; notLanded: unknown[] };
    };
    expect(night.done).toBe(status.queue.done);
    expect(night.failed).toBe(status.queue.failed);
    expect(night.sessions).toBe(status.budget.run.iterations);
    expect(night.landing.landed).toBe(landing.landed);
    expect(night.landing.notLanded).toHaveLength(landing.notLanded.length);
  });
});
