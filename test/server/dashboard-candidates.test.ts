// An item's candidates on its review page, in a real headless Chromium: each one's agent, cost
// and end side by side, the judge's verdicts per criterion, its ranking and reason, at a
// desktop's and a phone's width. Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { landingWorkspace } from '../support/landing.js';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { ralph } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const { root } = await landingWorkspace(
    { enabled: false },
    {
      gates: [
        {
          name: 'test ! -e broken.txt',
          command: [
            'sh',
            '-c',
            'if [ -e broken.txt ]; then echo "not ok: broken.txt is there"; exit 1; fi',
          ],
        },
      ],
    },
  );
  const body = [
    '#behave: work commit=1',
    '#behave@greet.b: work commit=1 file=best.txt',
    '#behave@greet.c: work commit=1 file=broken.txt',
    '#judge: prefer text=best.txt',
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
    '--criterion',
    'the test passes',
    '--max-attempts',
    '1',
    '--candidates',
    'claude:opus,claude:sonnet,claude:haiku',
  ]);
  expect(added.code, added.stderr).toBe(0);
  const run = await ralph(root, ['run', '--drain']);
  expect(run.code, run.stderr).toBe(0);
  served = await startServe(root);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(served.openUrl);
  await page.locator('#night').waitFor();
  await page.evaluate("location.hash = '#/review/greet'");
  await page.locator('#review-page table.candidates').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe("an item's candidates on its review page", () => {
  it('shows each candidate side by side, the pick, the one out, and the judge', async () => {
    const rows = await page.locator('#review-page table.candidates tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      /^Aclaude opus\$0\.01\d+\.\ds1 file \+1 −0passed \([0-9a-f]{12}\)PASSPASS$/,
    );
    expect(rows[1]).toMatch(
      /^Bclaude sonnet\$0\.01\d+\.\ds1 file \+1 −0picked \([0-9a-f]{12}\)PASSPASS$/,
    );
    expect(rows[2]).toMatch(
      /^Cclaude haiku\$0\.01\d+\.\ds1 file \+1 −0out: gate "test ! -e broken.txt" failed/,
    );
    expect(await page.locator('#review-page tr.picked td').first().textContent()).toBe('B');
    expect(await page.locator('#review-page p.judgement').textContent()).toMatch(
      /^Judge claude \(\$0\.01\), ranked B, A: [AB] reads best \(it knew [AB] as A, [AB] as B\)$/,
    );
    // The one out shows the end of its gate's output, opened on a click.
    const out = page.locator('#review-page details.candidate-out');
    expect(await out.locator('summary').textContent()).toMatch(/^C: gate "test ! -e broken.txt"/);
    await out.locator('summary').click();
    expect(await out.locator('pre').textContent()).toContain('not ok: broken.txt is there');
    await page.screenshot({ path: path.join(ARTIFACTS, 'candidates-1440.png'), fullPage: true });
  });

  it('fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#review-page table.candidates').scrollIntoViewIfNeeded();
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'candidates-390.png'), fullPage: true });
  });
});
