// Imported work and the notifications of a night on the dashboard, in a real headless
// Chromium: an item's page links the issue it came from, the report lists the imported items
// and what was told to whom. Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startServe, stopServers } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, tempDir } from '../support/workspace.js';

let browser: Browser | undefined;
let github: FakeGitHub | undefined;
let hooks: Receiver | undefined;

afterAll(async () => {
  await browser?.close();
  await stopServers();
});
afterEach(async () => {
  await github?.close();
  await hooks?.close();
});

const env = { GITHUB_TOKEN: 'test-token-0123456789' };

describe('imported work and notifications on the dashboard', () => {
  it("shows an item's issue, the imported items and what was told", async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    github = await startFakeGitHub();
    hooks = await startReceiver();
    const root = await makeWorkspace({
      clis: { claude: { command: [FAKE_CLAUDE] } },
      defaults: { workDir: await tempDir(), maxAttempts: 1 },
      forge: { kind: 'github', apiUrl: github.url, repo: 'acme/app', writeInterval: 0.01 },
      import: { writeBack: true },
      notify: [{ kind: 'webhook', url: `${hooks.url}/hook` }],
      run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
    });
    for (const [number, title, body] of [
      [41, 'Fix the date parser', '#behave: ok'],
      [42, 'Speed up the export', '#behave: no-result'],
    ] as const)
      github.issues.push({
        number,
        title,
        body,
        state: 'open',
        labels: ['ralph'],
        user: 'octo',
        comments: [],
      });
    expect((await ralph(root, ['import', 'github:acme/app', '--label', 'ralph'], env)).code).toBe(
      0,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    const served = await startServe(root);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(served.openUrl);
    await page.locator('.card[data-item="issue-41"] a.title').click();
    const source = page.locator('#item-page .source');
    await source.waitFor();
    expect(await source.textContent()).toMatch(
      /from GitHub issue acme\/app#41 by @octo · its end written back/,
    );
    expect(await source.locator('a').getAttribute('href')).toBe(
      'https://github.example/acme/app/issues/41',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'item-source-1440.png'), fullPage: true });
    await page.goto(`${served.base}/#/report`);
    const imported = page.locator('#imported');
    await imported.waitFor();
    expect(await imported.textContent()).toContain('Imported · 2 items');
    expect(await imported.textContent()).toContain('issue-42 failed · GitHub issue acme/app#42');
    const told = page.locator('#notifications');
    expect(await told.textContent()).toMatch(
      /Notifications · 6 sent · item started 2, item ended 2, item failed 1, night ended 1/,
    );
    expect(await told.textContent()).toContain('issue-42 failed');
    expect(await told.textContent()).toContain('notify[0] (webhook) sent');
    await page.screenshot({
      path: path.join(ARTIFACTS, 'report-notifications-1440.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({
      path: path.join(ARTIFACTS, 'report-notifications-390.png'),
      fullPage: true,
    });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    expect(errors).toEqual([]);
  });
});
