// The morning view in a real headless Chromium: the night at the top of the board (span,
// outcomes, spend, each failure in the agent's last words), an item's page (task, attempts,
// gate logs, its branch's diff) and the runner's own entries in the Live view.
// Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../support/git.js';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;
let root: string;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  root = await makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
  });
  const repo = await makeRepo();
  await ralph(root, [
    'add',
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
  await ralph(root, [
    'add',
    'Fix the flaky test',
    '--id',
    'flaky',
    '--max-attempts',
    '1',
    '--body',
    '#behave: ok text=I_could_not_reproduce_the_failure:_the_test_passes_here',
  ]);
  // Made to fail after its session: the agent's words say why it stopped.
  await ralph(root, [
    'add',
    'Broken gate',
    '--id',
    'broken',
    '--max-attempts',
    '1',
    '--gate',
    'false',
    '--body',
    '#behave: ok text=Done,_but_see_the_gate',
  ]);
  expect((await ralph(root, ['run', '--drain', '--max-cost', '5'])).code).toBe(1);
  served = await startServe(root);
  browser = await launchChromium();
  // Times are shown in the person's own time zone.
  page = await browser.newPage({
    viewport: { width: 1440, height: 900 },
    timezoneId: 'Asia/Tokyo',
  });
  await page.goto(served.openUrl);
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe('the morning view', () => {
  it("shows the night at the top of the board, each failure in the agent's last words", async () => {
    await page.locator('#night').waitFor();
    const night = (await page.locator('#night').textContent()) ?? '';
    expect(night).toMatch(/2 done · 1 failed/);
    expect(night).toMatch(/of \$5\.00 \(\$4\.\d\d left\)/);
    expect(night).toMatch(/broken gate_failed: Done,_but_see_the_gate transcript/);
    // The plan the run started with, against the night: with no history yet each item is
    // planned at its caps ($5), so the run's cost cap of $5 leaves two for the morning.
    const plan = (await page.locator('#night-plan').textContent()) ?? '';
    expect(plan).toMatch(
      /^Plan 1 item, at most \$5\.00, done by \d\d:\d\d:\d\d at the latest · 2 left for the morning/,
    );
    expect(plan).toMatch(
      /So far: 1 of 1 planned ran, 1 succeeded, \$0\.03 of \$5\.00 spent · 2 unplanned$/,
    );
    // The failed card says why in the agent's words, and links to its transcript.
    const broken = page.locator('.card[data-item="broken"]');
    expect(await broken.locator('.note.why').textContent()).toBe('Done,_but_see_the_gate');
    expect(await broken.locator('a.sessions-link').getAttribute('href')).toMatch(/^#\/sessions\//);
    const { run } = JSON.parse(
      fs.readFileSync(path.join(root, 'state', 'budget.json'), 'utf8'),
    ) as {
      run: { startedAt: string };
    };
    const tokyo = new Date(Date.parse(run.startedAt) + 9 * 3600_000).toISOString();
    expect(night).toContain(`The night ${tokyo.slice(0, 10)} ${tokyo.slice(11, 19)}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'morning-1440.png'), fullPage: true });
  });

  it("opens an item's page: its task, attempts with their gate logs, and its branch's diff", async () => {
    await page.locator('.card[data-item="feature"] a.title').click();
    await page.locator('#item-page').waitFor();
    expect(await page.locator('#item-page pre.task').textContent()).toContain('#behave: work');
    expect(await page.locator('#item-page table.attempts tbody tr').count()).toBe(1);
    await page.locator('#item-page button', { hasText: 'gate log' }).click();
    expect(await page.locator('#item-page pre.log').textContent()).toMatch(/git version/);
    expect(await page.locator('#item-diff').textContent()).toMatch(/\+\+\+ b\/feature\.txt/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'item-1440.png'), fullPage: true });
    // The same page on a phone's width.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'item-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it("shows the runner's entries in the Live view", async () => {
    await page.goto(`${served.base}/#/live`);
    await page.locator('#runner-log').waitFor();
    expect(await page.locator('#runner-log').textContent()).toMatch(/gate ended \(broken\)/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'live-log-1440.png'), fullPage: true });
  });
});
