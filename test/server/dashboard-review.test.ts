// A pull request that waits for a person, in a real headless Chromium: its item has a column of
// its own on the board ("to merge", shown only while one waits), and its page links the pull
// request, says its checks passed, and offers no message box (its agent's work is over). No
// card's buttons run past its edge.
// Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { queueItem } from '../support/items.js';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { makeWorkspace } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const root = await makeWorkspace({});
  const at = new Date().toISOString();
  const items = [
    queueItem('review', {
      title: 'Add the export button',
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
      attempts: 1,
      createdAt: at,
      finishedAt: at,
      checks: 'green: build, test',
      pullRequest: {
        number: 12,
        url: 'https://github.example/acme/app/pull/12',
        head: 'ralph/review',
        base: 'main',
        kind: 'item',
      },
    }),
    queueItem('next', { title: 'Document the export', createdAt: at }),
    // Three buttons each (retry, cancel, remove): wider than a column at 1440.
    queueItem('parked', { title: 'A parked item', status: 'parked', attempts: 1, createdAt: at }),
    queueItem('failed', {
      title: 'A failed item',
      status: 'failed',
      attempts: 3,
      lastError: 'gate failed',
      createdAt: at,
    }),
  ];
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({ schema: 7, version: 1, items }),
  );
  served = await startServe(root);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(served.openUrl);
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe('a pull request waiting for review', () => {
  it('has a column of its own on the board, and a page that links it', async () => {
    const column = page.locator('.column[data-status="awaiting_merge"]');
    await column.locator('.card[data-item="review"]').waitFor();
    // "to merge", apart from the items waiting for ralph's own reviewer ("reviewing").
    expect(await column.locator('h2, h3').first().textContent()).toMatch(/^to merge/);
    // No card's buttons run past its edge.
    const overflowing = await page.evaluate<string[]>(
      "[...document.querySelectorAll('.card')].filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.dataset.item)",
    );
    expect(overflowing).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'review-board-1440.png'), fullPage: true });
    await page.goto(`${served.base}/#/items/review`);
    const facts = page.locator('#item-page .facts');
    await facts.waitFor();
    expect(await facts.textContent()).toContain('awaiting_merge');
    expect(await facts.locator('a[href$="/pull/12"]').textContent()).toBe('#12');
    expect(await facts.textContent()).toContain('green: build, test');
    expect(await page.locator('#item-page .message-box').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'review-item-1440.png'), fullPage: true });
  });
});
