// Landing on the board, in a real headless Chromium: a landed item says where and at which
// commit, an item waiting to land has a column of its own (shown only while one waits), one
// handed back by a failed landing says why. Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { makeRepo } from '../support/git.js';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const repo = await makeRepo();
  const root = await makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    defaults: { workDir: repo },
    git: { enabled: true },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
  });
  for (const id of ['landed', 'waiting'])
    await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', `#behave: land file=${id}.txt`]);
  expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
  expect((await ralph(root, ['land', 'landed'])).code).toBe(0);
  // One put in line by hand, as a night between two landings leaves it.
  const file = path.join(root, 'state', 'queue.json');
  const queue = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    items: { id: string; status: string }[];
  };
  for (const item of queue.items) if (item.id === 'waiting') item.status = 'landing';
  fs.writeFileSync(file, JSON.stringify(queue));
  served = await startServe(root);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(served.openUrl);
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe('landing on the board', () => {
  it('says where a done item landed, and shows the items waiting to land in a column', async () => {
    const landed = page.locator('.card[data-item="landed"]');
    await landed.waitFor();
    expect(await landed.locator('.note.landed').textContent()).toMatch(
      /^landed on ralph\/landed at [0-9a-f]{12}$/,
    );
    const column = page.locator('.column[data-status="landing"]');
    expect(await column.locator('.card[data-item="waiting"]').count()).toBe(1);
    // Every column on one row at 1440 px, the page no wider than the screen.
    const tops = await page.evaluate<number[]>(
      "[...document.querySelectorAll('.column')].map((c) => c.getBoundingClientRect().top)",
    );
    expect(new Set(tops).size).toBe(1);
    expect(tops).toHaveLength(7);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      1440,
    );
    // The night's summary says what landed and what a landed item cost.
    const summary = await page.locator('#night .landing-summary').textContent();
    expect(summary).toMatch(
      /Landing · 1 landed · 1 waiting to land · 0 not landed · \$[0-9.]+ per landed item/,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'landing-1440.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'landing-390.png'), fullPage: true });
  });
});
