// The dashboard in a real headless Chromium (Debian's chromium, driven by playwright-core)
// against `ralph serve` while `ralph run` works: the board, the live session, the controls,
// the sessions and the report. Screenshots of each view go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue, tempDir } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;
let root: string;
let gate: string;
const problems: string[] = [];

const itemStatus = (id: string) => readQueue(root).items.find((i) => i.id === id)?.status;
const card = (status: string, id: string) =>
  page.locator(`.column[data-status="${status}"] .card[data-item="${id}"]`);
const shot = (name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Waits for a file-system fact the page's action should bring about. */
async function until(fact: () => boolean, what: string): Promise<void> {
  // A cap for a loaded machine, not a measure: the fact is waited for, however long it takes.
  await expect.poll(fact, { message: what, timeout: 30_000, interval: 20 }).toBe(true);
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
  gate = path.join(root, 'gate');
  await ralph(root, ['add', 'Write the changelog', '--id', 'changelog', '--body', '#behave: ok']);
  await ralph(root, [
    'add',
    'Fix the flaky test',
    '--id',
    'flaky',
    '--max-attempts',
    '1',
    '--body',
    '#behave: is-error',
  ]);
  expect((await ralph(root, ['run', '--drain'])).code).toBe(1);
  await ralph(root, [
    'add',
    'Refactor the parser',
    '--id',
    'parser',
    '--priority',
    '2',
    '--body',
    `#behave: gated gate=${gate} tool=1`,
  ]);
  await ralph(root, ['add', 'Later work', '--id', 'later', '--body', '#behave: ok']);
  served = await startServe(root);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  await page.goto(served.openUrl);
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe('the dashboard', () => {
  it('opens from the printed address and shows the queue as a board', async () => {
    // The token left the address bar for a cookie.
    expect(page.url()).toBe(`${served.base}/`);
    await card('pending', 'parser').waitFor();
    await expect.poll(() => card('done', 'changelog').count()).toBe(1);
    expect(await card('failed', 'flaky').textContent()).toMatch(/api_error/);
    expect(await card('pending', 'later').count()).toBe(1);
    await shot('board');
  });

  it('shows a session started by ralph run live, its transcript growing', async () => {
    const run = ralph(root, ['run', '--once', '--max-iterations', '1']);
    await card('running', 'parser').waitFor();
    await page.goto(`${served.base}/#/live`);
    await page.locator('.transcript', { hasText: 'before the gate' }).waitFor();
    expect(await page.locator('.facts').textContent()).toMatch(/parser/);
    // A long tool output is cut, and opens on a click.
    const output = page.locator('.line.result', { hasText: 'test 0 passed' });
    expect(await output.textContent()).not.toContain('test 79 passed');
    await output.getByRole('button', { name: 'all' }).click();
    expect(await output.textContent()).toContain('test 79 passed');
    await shot('live');
    // On a phone, at the tail of the transcript: what comes next stays in view.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate('scrollTo(0, document.documentElement.scrollHeight)');
    fs.writeFileSync(gate, '');
    // The rest of the session arrives as the fake agent writes it.
    await page.locator('.transcript', { hasText: 'after the gate' }).waitFor();
    await page.locator('.line.final.ok').waitFor();
    await expect
      .poll(async () => {
        const box = await page.locator('.line.final.ok').boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 844;
      })
      .toBe(true);
    await shot('live-390');
    await page.setViewportSize({ width: 1400, height: 900 });
    expect((await run).code).toBe(0);
    await page.goto(`${served.base}/#/`);
    await card('done', 'parser').waitFor();
  });

  it('pauses and resumes from its buttons', async () => {
    const interrupt = path.join(root, 'state', 'interrupt-request.txt');
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await until(() => fs.existsSync(interrupt), 'the interrupt file');
    // The page shows the pause it hears of (no bound on how soon: a loaded machine is slow).
    await page.locator('#paused-banner').waitFor();
    expect(fs.readFileSync(interrupt, 'utf8')).toMatch(/dashboard/);
    await shot('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await until(() => !fs.existsSync(interrupt), 'the interrupt file removed');
    await page.locator('#paused-banner').waitFor({ state: 'detached' });
  });

  it('retries, cancels and adds items', async () => {
    await card('failed', 'flaky').getByRole('button', { name: 'retry' }).click();
    await until(() => itemStatus('flaky') === 'pending', 'flaky pending again');
    await card('pending', 'flaky').waitFor();
    await card('pending', 'later').getByRole('button', { name: 'cancel' }).click();
    await until(() => itemStatus('later') === 'cancelled', 'later cancelled');
    await card('cancelled', 'later').waitFor();
    await page.locator('form.add-item input[name="title"]').fill('Added from the browser');
    await page.locator('form.add-item textarea[name="body"]').fill('Do it well.');
    await page.locator('form.add-item button[type="submit"]').click();
    await until(
      () =>
        readQueue(root).items.some(
          (i) => i.title === 'Added from the browser' && i.body === 'Do it well.',
        ),
      'the new item in state/queue.json',
    );
    await page.locator('.card', { hasText: 'Added from the browser' }).waitFor();
    // A refused change says why, naming the field.
    await page.locator('form.add-item input[name="title"]').fill('Too long');
    await page.locator('form.add-item textarea[name="body"]').fill('x'.repeat(33_000));
    await page.locator('form.add-item button[type="submit"]').click();
    await page.locator('.error-box', { hasText: 'the task text is 33,000 characters' }).waitFor();
    expect(readQueue(root).items.some((i) => i.title === 'Too long')).toBe(false);
    // The browser logs the refused request itself; that one is expected.
    const refused = problems.findIndex((p) => /status of 400/.test(p));
    expect(refused).not.toBe(-1);
    problems.splice(refused, 1);
    await shot('board-after-actions');
  });

  it('lists the sessions and shows one as a readable transcript', async () => {
    await page.goto(`${served.base}/#/sessions`);
    await page.locator('table.sessions tbody tr').first().waitFor();
    expect(await page.locator('table.sessions tbody tr').count()).toBe(3);
    await shot('sessions');
    await page.locator('table.sessions tbody tr', { hasText: 'parser' }).locator('a').click();
    await page.locator('.transcript', { hasText: 'after the gate' }).waitFor();
    expect(await page.locator('.line.tool').first().textContent()).toMatch(/→ Bash/);
    await shot('session');
  });

  it('reports per day and per item with a chart', async () => {
    await page.goto(`${served.base}/#/report`);
    await page.locator('svg.chart rect').first().waitFor();
    expect(await page.locator('table').nth(1).textContent()).toMatch(/flaky/);
    await shot('report');
  });

  it('stays usable with 1,000 items and 10,000 sessions: columns and the list are paged', async () => {
    const big = await makeWorkspace();
    const now = Date.now();
    const items = Array.from({ length: 1000 }, (_, i) => ({
      id: `item-${i}`,
      title: `Item ${i}`,
      status: i % 10 === 0 ? 'failed' : 'pending',
      createdAt: new Date(now + i).toISOString(),
    }));
    fs.writeFileSync(path.join(big, 'state', 'queue.json'), JSON.stringify({ version: 1, items }));
    const index = Array.from({ length: 10_000 }, (_, i) =>
      JSON.stringify({
        sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        itemId: `item-${i % 1000}`,
        itemTitle: `Item ${i % 1000}`,
        status: 'completed',
        outcome: 'success',
        startedAt: new Date(now - i * 60_000).toISOString(),
        toolCalls: 3,
        costUsd: 0.01,
      }),
    );
    fs.writeFileSync(path.join(big, 'docs', 'sessions', 'index.jsonl'), `${index.join('\n')}\n`);
    const server = await startServe(big);
    const other = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    other.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await other.goto(server.openUrl);
    const pending = other.locator('.column[data-status="pending"]');
    await pending.locator('.card').first().waitFor();
    expect(await pending.locator('.card').count()).toBe(50);
    await pending.getByRole('button', { name: '850 more' }).click();
    expect(await pending.locator('.card').count()).toBe(100);
    await other.goto(`${server.base}/#/sessions`);
    await other.locator('.pager', { hasText: '1–50 of 10000' }).waitFor();
    expect(await other.locator('table.sessions tbody tr').count()).toBe(50);
    await other.getByRole('button', { name: 'older' }).click();
    await other.locator('.pager', { hasText: '51–100 of 10000' }).waitFor();
    await other.close();
  });

  it('shows every running session with --workers, and the transcript of the one chosen', async () => {
    const both = path.join(root, 'gate-workers');
    // Only these two run: what the earlier tests left pending is set aside.
    await ralph(root, ['cancel', '--status', 'pending']);
    for (const id of ['left', 'right'])
      await ralph(root, [
        'add',
        `Work on the ${id}`,
        '--id',
        id,
        '--work-dir',
        await tempDir(),
        '--body',
        `#behave: gated gate=${both} tool=1`,
      ]);
    const run = ralph(root, ['run', '--drain', '--workers', '2']);
    await page.goto(`${served.base}/#/live`);
    await expect
      .poll(() => page.locator('.facts[data-session]').count(), { timeout: 30_000 })
      .toBe(2);
    await page.locator('.transcript', { hasText: 'before the gate' }).waitFor();
    const left = page.locator('.facts', { hasText: 'left' });
    await left.click();
    await expect.poll(() => left.getAttribute('class')).toContain('selected');
    await shot('live-workers');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('live-workers-phone');
    await page.setViewportSize({ width: 1400, height: 900 });
    fs.writeFileSync(both, '');
    expect((await run).code).toBe(0);
    expect([itemStatus('left'), itemStatus('right')]).toEqual(['done', 'done']);
    await expect
      .poll(() => page.locator('.facts[data-session]').count(), { timeout: 30_000 })
      .toBe(0);
  });

  it('raised no console error on any view, and the server none either', () => {
    expect(problems).toEqual([]);
    expect(served.child.exitCode).toBe(null);
    expect(served.stderr()).not.toMatch(/ralph serve: (?!the dashboard)/);
  });
});
