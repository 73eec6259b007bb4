// A Linear issue's item whose work went to a GitLab merge request, on the dashboard in a real
// headless Chromium: its card says MR !1, its page links the Linear issue it came from and the
// merge request, as each names them. Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import {
  GITLAB_TOKEN,
  brokenFilePipeline,
  startFakeGitLab,
  type FakeGitLab,
} from '../support/fake-gitlab.js';
import { LINEAR_KEY, startFakeLinear, type FakeLinear } from '../support/fake-linear.js';
import { makeRepoWithRemote } from '../support/git.js';
import { startServe, stopServers } from '../support/serve.js';
import { FAKE_CLAUDE, makeWorkspace, ralph } from '../support/workspace.js';

let browser: Browser | undefined;
let gitlab: FakeGitLab | undefined;
let linear: FakeLinear | undefined;

afterAll(async () => {
  await browser?.close();
  await stopServers();
});
afterEach(async () => {
  await gitlab?.close();
  await linear?.close();
});

const env = { GITLAB_TOKEN, LINEAR_API_KEY: LINEAR_KEY };

describe('GitLab and Linear on the dashboard', () => {
  it("names a Linear issue's item and its merge request as each does, and links them", async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const { repo, bare } = await makeRepoWithRemote();
    gitlab = await startFakeGitLab({ bare });
    gitlab.jobsFor = brokenFilePipeline(bare);
    linear = await startFakeLinear();
    const root = await makeWorkspace({
      clis: { claude: { command: [FAKE_CLAUDE] } },
      defaults: { workDir: repo },
      git: { enabled: true },
      forge: { kind: 'gitlab', apiUrl: gitlab.url, repo: gitlab.project, checks: { poll: 0.05 } },
      linear: { apiUrl: linear.url, team: 'ENG' },
      import: { writeBack: true },
      run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    });
    const issue = linear.addIssue({
      title: 'Show the orders page',
      labels: ['ralph'],
      description: 'A page of orders.\n\n- [ ] lists the orders\n\n#behave: ci',
    });
    expect((await ralph(root, ['import', 'linear:ENG', '--label', 'ralph'], env)).code).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(linear.stateOf(issue).name).toBe('In Review');
    const served = await startServe(root, [], env);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(served.openUrl);
    const card = page.locator('.card[data-item="eng-1"]');
    await card.waitFor();
    expect(await card.textContent()).toContain('MR !1');
    await page.screenshot({ path: path.join(ARTIFACTS, 'board-gitlab-1440.png'), fullPage: true });
    await card.locator('a.title').click();
    const source = page.locator('#item-page .source');
    await source.waitFor();
    expect(await source.textContent()).toMatch(/from Linear issue ENG-1/);
    expect(await source.locator('a').getAttribute('href')).toBe(
      'https://linear.example/acme/issue/ENG-1',
    );
    expect(await page.locator('#item-page .facts').textContent()).toContain('merge request !1');
    const mr = page.locator('#item-page .facts a', { hasText: '!1' });
    expect(await mr.getAttribute('href')).toBe(
      'https://gitlab.example/acme/platform/app/-/merge_requests/1',
    );
    await page.screenshot({
      path: path.join(ARTIFACTS, 'item-linear-gitlab-1440.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({
      path: path.join(ARTIFACTS, 'item-linear-gitlab-390.png'),
      fullPage: true,
    });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    expect(errors).toEqual([]);
  });
});
