// The Review view in a real headless Chromium: a night of 200 items waiting on a person, most at
// risk first, driven from the keyboard (j/k, enter, a, r with a note, d), at a desktop's and a
// phone's width; an item's review page with its diff by file. Screenshots go to
// test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReviewNight } from '../../scripts/review-night.mjs';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { addFileItems, landingWorkspace } from '../support/landing.js';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { ralph, readQueue } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;
let root: string;

const ledger = () =>
  fs
    .readFileSync(path.join(root, 'state', 'decisions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Waits until the element `id` has the keyboard's focus, as the box a key opened gives it. */
const focused = (id: string) =>
  expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe(id);

/** The index of the inbox's selected row. */
async function selectedRow(): Promise<number> {
  const ids = await page.locator('#review .inbox-row .inbox-main a').allTextContents();
  return ids.indexOf(
    (await page.locator('#review .inbox-row.selected .inbox-main a').textContent()) ?? '',
  );
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  ({ root } = await landingWorkspace({ enabled: false }));
  writeReviewNight(root, { items: 198 });
  const queue = readQueue(root).items;
  // Two real items of git mode after the made-up night: their pages have a diff to show.
  await addFileItems(root, ['real-a', 'real-b'], (id) => `Real ${id}`);
  const run = await ralph(root, ['run', '--drain']);
  expect(run.code, run.stderr).toBe(0);
  expect(queue).toHaveLength(198);
  served = await startServe(root);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(served.openUrl);
  // The token's redirect lands on the board first; the Review view is a hash away.
  await page.locator('#night').waitFor();
  await page.evaluate("location.hash = '#/review'");
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe('the Review view', () => {
  it('lists the 200 items waiting, most at risk first, each with the parts of its score', async () => {
    await page.locator('#review .inbox-row').first().waitFor();
    expect(await page.locator('#review h2').textContent()).toBe(
      '200 waiting on you, most at risk first',
    );
    expect(await page.locator('#review .inbox-row').count()).toBe(200);
    const scores = await page.locator('#review .inbox-row .risk').allTextContents();
    expect(scores.map(Number)).toEqual([...scores.map(Number)].sort((a, b) => b - a));
    const first = (await page.locator('#review .inbox-row').first().textContent()) ?? '';
    expect(first).toMatch(/status \+40|decision|asks|failed after/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'review-1440.png') });
  });

  it('goes through the inbox from the keyboard: j/k, enter, a, r with a note, d', async () => {
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await page.locator('#review-1').getAttribute('class')).toContain('selected');
    // Accept the real item that waits: it is found by its row, moved to with j.
    const ids = await page.locator('#review .inbox-row .inbox-main a').allTextContents();
    const target = ids.indexOf('real-a');
    await page.keyboard.press('k');
    for (let i = 0; i < target; i++) await page.keyboard.press('j');
    await page.keyboard.press('a');
    await page.locator('#review-said').waitFor();
    expect(await page.locator('#review-said').textContent()).toMatch(/^real-a: accepted/);
    await page.locator('#review h2', { hasText: '199 waiting' }).waitFor();
    // Back to the top, the most at risk: reject it with a note typed into the box r opens.
    const at = await selectedRow();
    for (let i = 0; i < at; i++) await page.keyboard.press('k');
    expect(await selectedRow()).toBe(0);
    const rejected =
      (await page.locator('#review .inbox-row.selected .inbox-main a').textContent()) ?? '';
    await page.keyboard.press('r');
    await focused('reject-note');
    await page.keyboard.type('The export drops the header row');
    await page.keyboard.press('Enter');
    await page.locator('#review h2', { hasText: '198 waiting' }).waitFor();
    // Defer the next one by a day.
    const deferred =
      (await page.locator('#review .inbox-row.selected .inbox-main a').textContent()) ?? '';
    await page.keyboard.press('d');
    await focused('defer-until');
    await page.keyboard.press('Enter');
    await page.locator('#review h2', { hasText: '197 waiting' }).waitFor();
    expect(ledger().map((l) => [l.item, l.decision, l.note])).toEqual([
      ['real-a', 'accepted', undefined],
      [rejected, 'rejected', 'The export drops the header row'],
      [deferred, 'deferred', undefined],
    ]);
    expect(ledger()[0]?.by).toMatch(/^dashboard \(127\.0\.0\.1/);
    // The top item asked a question: rejected with a note, it is back in line with it.
    const queued = readQueue(root).items.find((i) => i.id === rejected);
    expect(queued).toMatchObject({ status: 'pending', decision: { kind: 'rejected' } });
    const messages = (queued?.messages ?? []) as { text: string }[];
    expect(messages.at(-1)?.text).toContain('The export drops the header row');
  });

  it("opens an item's page with enter: the diff by file, the decisions it allows", async () => {
    const ids = await page.locator('#review .inbox-row .inbox-main a').allTextContents();
    const target = ids.indexOf('real-b');
    const selected = await selectedRow();
    const key = target > selected ? 'j' : 'k';
    for (let i = 0; i < Math.abs(target - selected); i++) await page.keyboard.press(key);
    await page.keyboard.press('Enter');
    await page.locator('#review-page').waitFor();
    expect(await page.locator('#review-page h2').textContent()).toContain('real-b: Real real-b');
    expect(await page.locator('#review-page .file-diff summary').textContent()).toContain(
      'real-b.txt',
    );
    expect(await page.locator('#review-page .file-diff div.add').allTextContents()).toContain(
      '+line of real-b',
    );
    // An added line is one line high, as every other line of the diff: no rule of the add
    // form's reaches it.
    const heights = await page.evaluate<[string, number][]>(
      "[...document.querySelectorAll('#review-page .file-diff pre.diff div')].map((line) => [line.className, line.getBoundingClientRect().height])",
    );
    const added = heights.filter(([kind]) => kind === 'add').map(([, h]) => h);
    const file = heights.filter(([kind]) => kind === 'file').map(([, h]) => h);
    expect(added.length).toBeGreaterThan(0);
    for (const h of added) expect(h).toBe(file[0]);
    expect(await page.locator('#review-page button').allTextContents()).toEqual([
      'Accept',
      'Reject',
      'Defer',
    ]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'review-item-1440.png'), fullPage: true });
    // Accepted from its page: the time the page was open goes with the decision, for the
    // report; those taken from the inbox's rows carry none.
    await page.locator('#review-page #accept').click();
    await expect
      .poll(() => ledger().find((line) => line.item === 'real-b')?.reviewMs)
      .toBeGreaterThan(0);
    expect(ledger().filter((line) => line.item !== 'real-b' && 'reviewMs' in line)).toEqual([]);
  });

  it("fits a phone's width, its decisions a tap each", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${served.base}/#/review`);
    await page.locator('#review .inbox-row').first().waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    const box = await page
      .locator('#review .inbox-row')
      .first()
      .locator('button', { hasText: 'Reject' })
      .boundingBox();
    expect(box?.height ?? 0).toBeGreaterThanOrEqual(40);
    // Each decision a tap the width of its row, and no keyboard hints on a phone.
    const row = await page.locator('#review .inbox-row').first().boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan((row?.width ?? 0) * 0.8);
    expect(await page.locator('#review .keys').isVisible()).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'review-390.png') });
    await page.goto(`${served.base}/#/review/real-b`);
    await page.locator('#review-page').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'review-item-390.png'), fullPage: true });
  });

  it('says on the report your decisions and your time on them', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${served.base}/#/report`);
    const decisions = page.locator('#decisions');
    await decisions.waitFor();
    const text = (await decisions.textContent()) ?? '';
    expect(text).toMatch(/^Your decisions · \d+: \d+ accepted, \d+ rejected, \d+ deferred/);
    expect(text).toMatch(/your time: \S+ a decision \(the median of 1 timed on an item's page\)/);
    // Night over night: a row of bars for each of the three, the night's figure on each bar.
    const titles = await page.locator('#nights text.row-title').allTextContents();
    expect(titles).toEqual([
      'accepted at the first pass',
      'per accepted change',
      'your time a decision',
    ]);
    expect(await page.locator('#nights rect').count()).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-decisions-1440.png') });
  });
});
