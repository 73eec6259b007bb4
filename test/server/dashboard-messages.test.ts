// Messages to one item's agent from the dashboard, in a real headless Chromium: the Live view's
// box gives a running session a message (on its CLI's stdin, mid-task), and the item
// page's box answers an item that asked a person; over the API a finished item is refused.
// Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { guardedWorkspace, ledger } from '../support/guarded.js';
import { startRunner } from '../support/runner.js';
import { request, startServe, stopServers } from '../support/serve.js';
import { eventually } from '../support/wait.js';
import { ralph, readQueue } from '../support/workspace.js';

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

const item = (root: string, id: string) => readQueue(root).items.find((i) => i.id === id);

describe('messages from the dashboard', () => {
  it('sends a running session a message from the Live view, and answers an item that needs a person', async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const { root, env } = await guardedWorkspace();
    for (const [id, body] of [
      // It works on for a while after it hears the message: its Live card (and box) stays.
      ['talk', '#behave: listen ms=60000 after=3000'],
      ['asks', '#behave: ask q=Which-port-should-it-listen-on?'],
    ] as const) {
      const dir = path.join(root, `dir-${id}`);
      fs.mkdirSync(dir);
      await ralph(root, ['add', id, '--id', id, '--body', body, '--work-dir', dir], env);
    }
    const runner = startRunner(root, env, '--workers', '2');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(
      () =>
        item(root, 'talk')?.status === 'running' &&
        ledger(root).some((l) => l.startsWith('start talk ')) &&
        item(root, 'asks')?.status === 'needs_input',
      20_000,
      'talk runs, asks waits for a person',
    );
    const served = await startServe(root);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(served.openUrl);
    // The board shows the question in its own column.
    const asking = page.locator('.column[data-status="needs_input"] .card[data-item="asks"]');
    await asking.waitFor();
    expect(await asking.textContent()).toContain('asks: Which port should it listen on?');
    await page.screenshot({ path: path.join(ARTIFACTS, 'needs-input-1440.png'), fullPage: true });
    // The Live view's box: the running session takes the message mid-task.
    await page.goto(`${served.base}/#/live`);
    const box = page.locator('.message-box[data-item="talk"]');
    await box.locator('textarea').fill('Wrap up and write the summary.');
    await page.screenshot({ path: path.join(ARTIFACTS, 'message-live-1440.png'), fullPage: true });
    await box.locator('button', { hasText: 'send' }).click();
    await box.locator('.ok', { hasText: 'given to its running session' }).waitFor();
    await eventually(() => item(root, 'talk')?.status === 'done', 30_000, 'talk done');
    const talk = item(root, 'talk');
    expect(talk?.messages).toEqual([
      expect.objectContaining({
        text: 'Wrap up and write the summary.',
        from: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown,
        session: (talk?.sessions as string[])[0],
      }),
    ]);
    expect(talk?.sessions).toHaveLength(1);
    // The session it was given to shows it, with who sent it.
    await page.goto(`${served.base}/#/sessions/${(talk?.sessions as string[])[0] ?? ''}`);
    await page
      .locator('.messages', { hasText: 'Wrap up and write the summary.' })
      .filter({ hasText: /message from 127\.0\.0\.1:\d+, .* \(while it ran\)/ })
      .waitFor();
    await page.screenshot({
      path: path.join(ARTIFACTS, 'message-session-1440.png'),
      fullPage: true,
    });
    // The item page's box answers the question; the item resumes and is done.
    await page.goto(`${served.base}/#/items/asks`);
    const answer = page.locator('.message-box[data-item="asks"]');
    expect(await answer.textContent()).toContain('asks: Which port should it listen on?');
    await answer.locator('textarea').fill('8080');
    await answer.locator('button', { hasText: 'answer' }).click();
    await answer.locator('.ok', { hasText: 'answered' }).waitFor();
    await eventually(() => item(root, 'asks')?.status === 'done', 30_000, 'asks done');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('.messages').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'messages-item-390.png'), fullPage: true });
    // A finished item takes none, and says why.
    const refused = await request(served, 'POST', '/items/asks/messages', {
      body: { text: 'more' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('asks is done: a finished item takes no message');
    runner.child.kill('SIGTERM');
    await runner.exited;
  });
});
