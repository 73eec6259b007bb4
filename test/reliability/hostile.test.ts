// C. Hostile agents, beyond the guards of test/integration/guards.test.ts: a 50 MB line
// (T15), invalid UTF-8 (T17), absurd nesting (T18), a stderr flood (T20) and a process tree
// (T21), each followed by the invariant checker. HUGE_LINE_MB scales T15.
import { afterEach, describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { ralph, readSessions } from '../support/workspace.js';
import {
  checkInvariants,
  killRunners,
  processUsage,
  recordFigures,
  scale,
  snapshot,
  startRunner,
} from './harness.js';

afterEach(killRunners);

const HUGE_LINE_MB = scale('HUGE_LINE_MB', 20);

async function runOne(body: string, flags: string[] = []) {
  const { root, env } = await guardedWorkspace();
  await ralph(root, [
    'add',
    'hostile',
    '--id',
    'h',
    '--body',
    body,
    '--max-attempts',
    '1',
    ...flags,
  ]);
  const before = snapshot(root);
  const runner = startRunner(root, env);
  let peakRss = 0;
  let baseRss: number | undefined;
  const sampler = setInterval(() => {
    const usage = processUsage(runner.child.pid ?? 0);
    if (usage === undefined) return;
    baseRss ??= usage.rssBytes;
    peakRss = Math.max(peakRss, usage.rssBytes);
  }, 20);
  const { code } = await runner.exited;
  clearInterval(sampler);
  const report = await checkInvariants(root, { ids: ['h'], before, cleanExit: true });
  const [record] = readSessions(root);
  return {
    root,
    env,
    code,
    stderr: runner.stderr(),
    report,
    record,
    growth: peakRss - (baseRss ?? 0),
  };
}

describe('C. hostile agents', () => {
  it(`T15 archives a ${HUGE_LINE_MB} MB line whole in bounded memory and still reads the result`, async () => {
    const run = await runOne(`#behave: huge-line mb=${HUGE_LINE_MB}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.record).toMatchObject({
      status: 'completed',
      outcome: { kind: 'success' },
      streamIssues: { oversize: 2 },
    });
    expect(run.growth).toBeLessThan(200 * 1024 ** 2);
    recordFigures({ scenario: 'T15 huge line', items: 1, ...run.report });
    expect(run.report.problems).toEqual([]);
  });

  it('T17 keeps the agent’s bytes exactly, counts invalid UTF-8 and keeps a split emoji', async () => {
    const run = await runOne('#behave: bytes');
    expect(run.code, run.stderr).toBe(0);
    expect(run.record).toMatchObject({
      outcome: { kind: 'success' },
      streamIssues: { invalid_utf8: 1 },
    });
    const logs = await ralph(run.root, ['logs', String(run.record?.sessionId)]);
    expect(logs.stdout).toContain('emoji \u{1F600} bad \ufffd(\ufffd\ufffd\ufffd');
    // I6 compares the archive's sha256 with the one the agent computed of what it wrote.
    expect(run.report.problems).toEqual([]);
  });

  it('T18 records malformed, wrongly shaped and absurdly nested lines, and goes by the result', async () => {
    const run = await runOne('#behave: deep-nesting');
    expect(run.code, run.stderr).toBe(0);
    expect(run.record).toMatchObject({
      outcome: { kind: 'success' },
    });
    // The nested line is refused by depth or, when V8 can parse it, by shape; either is flagged.
    const issues = run.record?.streamIssues as Record<string, number>;
    expect((issues.too_deep ?? 0) + (issues.schema ?? 0)).toBe(2);
    expect(run.report.problems).toEqual([]);
  });

  it('T20 drains a stderr flood and counts it as activity for the idle limit', async () => {
    // Silent on stdout for 2.5 idle windows; the window is wide enough for the fake agent's
    // start-up on a loaded machine, which is silence too.
    const run = await runOne('#behave: flood-stderr ms=5000', ['--idle-timeout', '2s']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.record).toMatchObject({ outcome: { kind: 'success' } });
    expect((run.record?.heartbeat as { stderrBytes: number }).stderrBytes).toBeGreaterThan(
      1024 ** 2,
    );
    expect(run.report.problems).toEqual([]);
  });

  it('T21 kills a tree of 50 grandchildren left in the agent’s group', async () => {
    const run = await runOne('#behave: spawn-tree n=50');
    expect(run.code, run.stderr).toBe(0);
    // Whatever of the tree outlived the agent was killed; I4 finds none of the 50 alive.
    expect((run.record?.killedProcesses as number[]).length).toBeGreaterThan(0);
    recordFigures({ scenario: 'T21 process tree', items: 1, ...run.report });
    expect(run.report.problems).toEqual([]);
  });
});
