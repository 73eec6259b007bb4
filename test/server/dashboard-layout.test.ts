// The dashboard as people see it on a phone (390 px) and a desktop (1440 px), in a real headless
// Chromium: long notes and unbroken titles never widen the page, the sessions and the report
// keep outcome and cost in view, and a server that stopped answering is said, not hidden.
// Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph } from '../support/workspace.js';

let browser: Browser;
let served: Served;
let root: string;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
  const note = `Error: ${'the build failed because a dependency could not be resolved '.repeat(12)}`;
  await ralph(root, [
    'add',
    `Unbroken${'X'.repeat(190)}`,
    '--id',
    'unbroken',
    '--max-attempts',
    '1',
    '--body',
    `#behave: is-error text=${note.replace(/ /g, '_')}`,
  ]);
  await ralph(root, ['add', 'Write the changelog', '--id', 'changelog']);
  expect((await ralph(root, ['run', '--drain'])).code).toBe(1);
  served = await startServe(root);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

let page: Page | undefined;

/** The one page of these tests, at a width, on the board. */
async function open(width: number): Promise<Page> {
  let tab = page;
  if (tab === undefined) {
    tab = await browser.newPage({ viewport: { width, height: 900 } });
    page = tab;
    await tab.goto(served.openUrl);
  } else {
    await tab.setViewportSize({ width, height: 900 });
    await tab.goto(`${served.base}/#/`);
  }
  await tab.locator('.card[data-item="unbroken"]').waitFor();
  return tab;
}

const pageWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');

/** The right edge of the rightmost of these elements shown. */
async function rightmost(page: Page, selector: string): Promise<number> {
  let right = 0;
  for (const box of await Promise.all(
    (await page.locator(selector).all()).map((l) => l.boundingBox()),
  ))
    if (box !== null) right = Math.max(right, box.x + box.width);
  return right;
}

describe('the dashboard laid out', () => {
  it.each([390, 1440])(
    'keeps the board within %i px with a long note and an unbroken title',
    async (width) => {
      const tab = await open(width);
      expect(await pageWidth(tab)).toBeLessThanOrEqual(width);
      await tab.screenshot({
        path: path.join(ARTIFACTS, `board-${width}.png`),
        fullPage: width > 400,
      });
    },
  );

  it('shows outcome and cost of sessions and of the report on a phone', async () => {
    const tab = await open(390);
    await tab.goto(`${served.base}/#/sessions`);
    await tab.locator('table.sessions tbody tr').first().waitFor();
    const visible = await tab.locator('table.sessions thead th:visible').allTextContents();
    expect(visible).toEqual(expect.arrayContaining(['outcome', 'cost']));
    expect(await rightmost(tab, 'table.sessions td:visible')).toBeLessThanOrEqual(390);
    expect(await pageWidth(tab)).toBeLessThanOrEqual(390);
    await tab.screenshot({ path: path.join(ARTIFACTS, 'sessions-390.png') });
    await tab.goto(`${served.base}/#/report`);
    await tab.locator('table.report').first().waitFor();
    const report = await tab.locator('table.report thead th:visible').allTextContents();
    expect(report).toEqual(expect.arrayContaining(['succeeded', 'failed', 'cost']));
    expect(await rightmost(tab, 'table.report td:visible')).toBeLessThanOrEqual(390);
    await tab.screenshot({ path: path.join(ARTIFACTS, 'report-390.png') });
  });

  it('says when the server stopped answering, and lets nothing be changed meanwhile', async () => {
    const tab = await open(1440);
    await tab.locator('.controls button').first().waitFor();
    await served.stop();
    await tab.locator('#disconnected-banner').waitFor({ timeout: 30_000 });
    expect(await tab.locator('#disconnected-banner').textContent()).toMatch(
      /Disconnected from ralph serve since \d\d:\d\d:\d\d/,
    );
    for (const button of await tab.locator('.controls button, .card .actions button').all())
      expect(await button.isDisabled()).toBe(true);
    await tab.screenshot({ path: path.join(ARTIFACTS, 'disconnected-1440.png') });
  });
});
