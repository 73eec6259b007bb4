// Stopping one running item from the board, in a real headless Chromium, and over the API: the
// running card's stop button ends that session alone (the item runs again, its attempt given
// back), the log says who stopped it, and stopping an item that is not running is refused.
// Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { guardedWorkspace, ledger, logEvents } from '../support/guarded.js';
import { startRunner } from '../support/runner.js';
import { request, startServe, stopServers } from '../support/serve.js';
import { eventually } from '../support/wait.js';
import { ralph, readQueue } from '../support/workspace.js';

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

const status = (root: string, id: string) => readQueue(root).items.find((i) => i.id === id)?.status;

describe('stopping one item from the board', () => {
  it("ends the running card's session alone with its stop button, and refuses an item not running", async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'gate');
    for (const [id, body] of [
      ['stopped', '#behave: sequence steps=hang,ok'],
      ['other', `#behave: gated gate=${gate}`],
    ] as const) {
      const dir = path.join(root, `dir-${id}`);
      fs.mkdirSync(dir);
      await ralph(root, ['add', id, '--id', id, '--body', body, '--work-dir', dir], env);
    }
    const runner = startRunner(root, env, '--drain', '--workers', '2');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(
      () =>
        ['stopped', 'other'].every(
          (id) =>
            status(root, id) === 'running' &&
            ledger(root).some((l) => l.startsWith(`start ${id} `)),
        ),
      20_000,
      'both agents run',
    );
    const served = await startServe(root);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(served.openUrl);
    const card = page.locator('.column[data-status="running"] .card[data-item="stopped"]');
    await card.locator('button', { hasText: 'stop' }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'stop-1440.png'), fullPage: true });
    await card.locator('button', { hasText: 'stop' }).click();
    // The stopped item is parked, its card in a column of its own with a retry button.
    const parked = page.locator('.column[data-status="parked"] .card[data-item="stopped"]');
    await parked.locator('button', { hasText: 'retry' }).waitFor();
    expect(status(root, 'other')).toBe('running');
    await page.screenshot({ path: path.join(ARTIFACTS, 'stop-parked-1440.png'), fullPage: true });
    await parked.locator('button', { hasText: 'retry' }).click();
    // Put back, it runs again (its next call ends) and is done; the other still runs.
    await eventually(() => status(root, 'stopped') === 'done', 30_000, 'the stopped item done');
    expect(status(root, 'other')).toBe('running');
    const stopped = logEvents(root).find((e) => e.event === 'item_stopped');
    expect(stopped).toMatchObject({ item: 'stopped', itemStatus: 'parked' });
    expect(String(stopped?.by)).toMatch(/^127\.0\.0\.1:\d+$/);
    // Retried: its attempts renewed, one spent since.
    const item = readQueue(root).items.find((i) => i.id === 'stopped');
    expect(item).toMatchObject({ attempts: 1 });
    const refused = await request(served, 'POST', '/items/stopped/stop');
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('stopped is done, not running: nothing to stop');
    fs.writeFileSync(gate, '');
    expect(await runner.exited).toBe(0);
  });
});
