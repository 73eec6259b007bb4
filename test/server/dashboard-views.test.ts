// Every view of the dashboard in a real headless Chromium, at a desktop's and a phone's width,
// on an empty workspace and on a heavy night: 1,000 items waiting, an item that several
// candidates tried, and a session whose transcript is 5 MB. No view may raise a console error.
// Screenshots go to test-artifacts/dashboard/views-<workspace>-<view>-<width>.png.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { landingWorkspace } from '../support/landing.js';
import { startServe, stopServers } from '../support/serve.js';
import { makeWorkspace, ralph, readQueue, readSessions } from '../support/workspace.js';

/** A month of lessons: two rules proposed that wait, two accepted and checked night after night. */
function writeRulesMonth(root: string, now: number): void {
  const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
  const lessons = Array.from({ length: 6 }, (_, i) => ({
    id: `L${i + 1}`,
    key: `decision:d${i * 5}`,
    kind: i % 2 === 0 ? 'rejection' : 'dismissed',
    text:
      i % 2 === 0
        ? 'not this way: never edit generated files under dist/'
        : 'src/a.ts:3: add a comment',
    items: [`gone-${i * 5}`],
    decisions: [`d${i * 5}`],
    sessions: [],
    at: at(28 - i),
    proposal: i < 4 ? 'P1' : undefined,
  }));
  const rule = (id: string, text: string, kind: string, status: string, evidence: string[]) => ({
    id,
    text,
    kind,
    scope: kind === 'follow' ? ['dist/**'] : [],
    evidence,
    proposal: status === 'proposed' ? 'P2' : 'P1',
    status,
    proposedAt: at(status === 'proposed' ? 1 : 20),
    ...(status === 'accepted' ? { decided: { by: 'cli', at: at(20) }, into: 'workspace' } : {}),
  });
  fs.writeFileSync(
    path.join(root, 'state', 'lessons.json'),
    JSON.stringify({
      version: 1,
      lessons,
      proposals: [
        {
          id: 'P1',
          at: at(20),
          cli: 'codex',
          lessons: ['L1', 'L2', 'L3', 'L4'],
          rules: ['R1', 'R2'],
        },
        { id: 'P2', at: at(1), cli: 'codex', lessons: ['L5', 'L6'], rules: ['R3', 'R4'] },
      ],
      rules: [
        rule('R1', 'Never edit generated files under dist/.', 'follow', 'accepted', ['L1', 'L3']),
        rule('R2', 'Do not ask for a comment above every function.', 'dismiss', 'accepted', ['L2']),
        rule('R3', 'Run the formatter before committing.', 'follow', 'proposed', ['L5']),
        rule('R4', 'Do not flag a missing changelog line.', 'dismiss', 'proposed', ['L6']),
      ],
      gateFailures: {},
    }),
  );
  const checks = Array.from({ length: 19 * 3 }, (_, i) => ({
    rule: 'R1',
    item: `gone-${i}`,
    session: `s${i}`,
    by: 'reviewer',
    held: i % 7 !== 0,
    at: new Date(now - (19 - Math.floor(i / 3)) * 86_400_000 + i * 60_000).toISOString(),
  }));
  fs.writeFileSync(
    path.join(root, 'state', 'rule-checks.jsonl'),
    checks.map((c) => `${JSON.stringify(c)}\n`).join(''),
  );
}

const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

let browser: Browser;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

/** Opens each view of `root`'s dashboard at each width; the console's errors, if any. */
/** An item's source: a Linear team's issue. */
const linearSource = (i: number) => ({
  kind: 'linear',
  key: `linear:ENG-${i}`,
  ref: 'ENG',
  number: i,
  remoteId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  url: `https://linear.example/acme/issue/ENG-${i}`,
  author: 'ada',
  association: 'MEMBER',
  trusted: true,
  told: 'review',
});

/** An item's source: a GitLab project's issue. */
const gitLabSource = (i: number) => ({
  kind: 'gitlab',
  key: `gitlab:acme/platform/app#${i}`,
  ref: 'acme/platform/app',
  number: i,
  url: `https://gitlab.example/acme/platform/app/-/issues/${i}`,
  author: 'maintainer',
  association: 'MAINTAINER',
  trusted: true,
});

async function visit(root: string, name: string, views: Record<string, string>) {
  const served = await startServe(root);
  const problems: string[] = [];
  for (const viewport of WIDTHS) {
    const page = await browser.newPage({ viewport });
    // Requests in flight, the live feed's aside (it stays open).
    let inFlight = 0;
    const counted = (r: Request) => r.resourceType() !== 'eventsource';
    page.on('request', (r) => void (counted(r) && inFlight++));
    page.on('requestfinished', (r) => void (counted(r) && inFlight--));
    page.on('requestfailed', (r) => void (counted(r) && inFlight--));
    /** Until the view's requests are answered and nothing new asked for a while. */
    const settled = async () => {
      let quiet = 0;
      while (quiet < 5) {
        await page.waitForTimeout(60);
        quiet = inFlight === 0 ? quiet + 1 : 0;
      }
    };
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${name} ${viewport.width}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${name} ${viewport.width}: ${e.message}`));
    await page.goto(served.openUrl);
    await settled();
    for (const [view, hash] of Object.entries(views)) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await settled();
      // What a person sees first: the screen, not the page's whole length.
      await page.screenshot({
        path: path.join(ARTIFACTS, `views-${name}-${view}-${viewport.width}.png`),
      });
    }
    await page.close();
  }
  return problems;
}

describe('every view of the dashboard', () => {
  it('reads on an empty workspace, and says nothing is there', async () => {
    const root = await makeWorkspace();
    const problems = await visit(root, 'empty', {
      board: '#/',
      review: '#/review',
      live: '#/live',
      sessions: '#/sessions',
      report: '#/report',
    });
    expect(problems).toEqual([]);
  });

  it('reads on a heavy night: 1,000 items, candidates, a 5 MB transcript', async () => {
    const { root } = await landingWorkspace(
      { enabled: false },
      { gates: [['test', '!', '-e', 'broken.txt']] },
    );
    const body = [
      '#behave: work commit=1',
      '#behave@greet.c: work commit=1 file=broken.txt',
      '#judge: prefer text=greet.b.txt',
    ].join('\n');
    const added = await ralph(root, [
      'add',
      'Make the greeting say hello',
      '--id',
      'greet',
      '--body',
      body,
      '--criterion',
      'greet() returns hello',
      '--max-attempts',
      '1',
      '--candidates',
      'claude:opus,claude:sonnet,claude:haiku',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    // A thousand items waiting after the night's, and one session's transcript grown to 5 MB.
    const queueFile = path.join(root, 'state', 'queue.json');
    const queue = readQueue(root);
    const now = Date.now();
    const waiting = Array.from({ length: 1000 }, (_, i) => ({
      id: `item-${i}`,
      title: `Item ${i}: a task of the backlog with a title of some length`,
      status: i % 25 === 0 ? 'failed' : 'pending',
      createdAt: new Date(now + i).toISOString(),
      // Some imported from Linear and from GitLab's issues, a few with merge requests waiting.
      ...(i % 100 === 1 ? { source: linearSource(i) } : {}),
      ...(i % 100 === 2 ? { source: gitLabSource(i) } : {}),
      ...(i % 200 === 3
        ? {
            status: 'awaiting_merge',
            lastOutcome: 'ready_to_merge',
            checks: 'green: lint, test',
            source: linearSource(i),
            pullRequest: {
              number: i,
              url: `https://gitlab.example/acme/platform/app/-/merge_requests/${i}`,
              head: `ralph/item-${i}`,
              base: 'main',
              kind: 'item',
              forge: 'gitlab',
            },
          }
        : {}),
    }));
    fs.writeFileSync(queueFile, JSON.stringify({ ...queue, items: [...queue.items, ...waiting] }));
    // A month of the person's decisions, each timed on its page, on items since removed.
    const ledger = Array.from({ length: 30 * 12 }, (_, i) => ({
      id: `d${i}`,
      item: `gone-${i % 300}`,
      decision: i % 5 === 0 ? 'rejected' : 'accepted',
      ...(i % 5 === 0 ? { note: 'not this way', then: 'retry' } : {}),
      by: 'cli',
      at: new Date(now - (30 - Math.floor(i / 12)) * 86_400_000 + i * 60_000).toISOString(),
      status: 'done',
      risk: { score: 0, parts: [] },
      verdict: null,
      reviewMs: 20_000 + ((i * 7919) % 240_000),
    }));
    fs.writeFileSync(
      path.join(root, 'state', 'decisions.jsonl'),
      ledger.map((l) => `${JSON.stringify(l)}\n`).join(''),
    );
    // Lessons of that month: two rules proposed, two accepted, checked on the month's changes.
    writeRulesMonth(root, now);
    const session = readSessions(root).find((r) => r.itemId === 'greet.a');
    const sessionId = String(session?.sessionId);
    const stream = path.join(root, 'docs', 'sessions', `${sessionId}.ndjson`);
    const line = `${JSON.stringify({
      type: 'assistant',
      message: {
        id: 'msg_x',
        role: 'assistant',
        model: 'opus',
        content: [{ type: 'text', text: 'I read the parser and its tests. '.repeat(30) }],
      },
      session_id: sessionId,
    })}\n`;
    fs.appendFileSync(stream, line.repeat(Math.ceil((5 * 1024 * 1024) / line.length)));
    expect(fs.statSync(stream).size).toBeGreaterThan(5 * 1024 * 1024);
    const problems = await visit(root, 'heavy', {
      board: '#/',
      review: '#/review',
      'review-page': '#/review/greet',
      item: '#/items/greet',
      'item-linear': '#/items/item-203',
      live: '#/live',
      sessions: '#/sessions',
      session: `#/sessions/${sessionId}`,
      report: '#/report',
    });
    expect(problems).toEqual([]);
  });
});
