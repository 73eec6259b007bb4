// The rules proposed from a person's decisions, in the dashboard's Review view in a real headless
// Chromium: each with the evidence it rests on (the note, and the change behind it), accepted or
// rejected with a note; then the Report view's rules with what they achieved. Screenshots go to
// test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { addWithCriterion, landingWorkspace } from '../support/landing.js';
import { startServe, stopServers, type Served } from '../support/serve.js';
import { ralph } from '../support/workspace.js';

let browser: Browser;
let page: Page;
let served: Served;
let root: string;

const NOTE = 'never edit generated files under dist/';

const rules = () =>
  (
    JSON.parse(fs.readFileSync(path.join(root, 'state', 'lessons.json'), 'utf8')) as {
      rules: { id: string; status: string; decided?: { by: string; note?: string } }[];
    }
  ).rules;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  ({ root } = await landingWorkspace());
  await addWithCriterion(root, 'a', '#behave: work commit=1 file=dist/a.js');
  expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
  expect((await ralph(root, ['reject', 'a', '--note', NOTE, '--cancel'])).code).toBe(0);
  const answer = JSON.stringify({
    rules: [
      {
        text: 'Never edit generated files under dist/.',
        kind: 'follow',
        scope: ['dist/**'],
        evidence: ['L1'],
      },
      {
        text: 'Keep each change under a hundred lines.',
        kind: 'follow',
        scope: [],
        evidence: ['L1'],
      },
    ],
    summary: 'From one rejection.',
  });
  const proposed = await ralph(root, ['lessons', 'propose'], { FAKE_CLAUDE_PROPOSAL: answer });
  expect(proposed.code, proposed.stderr).toBe(0);
  served = await startServe(root);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(served.openUrl);
  await page.locator('#night').waitFor();
  await page.evaluate("location.hash = '#/review'");
});

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

describe('the rules proposed, in the Review view', () => {
  it('shows each rule with its evidence: the note and the change behind it', async () => {
    await page.locator('#proposed-rules').waitFor();
    expect(await page.locator('#proposed-rules h2').textContent()).toBe(
      '2 rules proposed from your decisions',
    );
    const first = page.locator('#rule-R1');
    expect(await first.textContent()).toContain('Never edit generated files under dist/.');
    expect(await first.textContent()).toContain('a rule every agent follows · dist/**');
    await first.locator('summary').click();
    const evidence = (await first.locator('.evidence-fold').textContent()) ?? '';
    expect(evidence).toContain(NOTE);
    expect(evidence).toContain('dist/a.js');
    expect(evidence).toContain('+work of a, attempt 1');
    await page.screenshot({ path: path.join(ARTIFACTS, 'rules-review-1440.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'rules-review-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('accepts one and rejects the other with a note: the state says who and why', async () => {
    await page.locator('#rule-R1 button', { hasText: 'Accept' }).click();
    await expect
      .poll(() => page.locator('#rules-said').textContent())
      .toContain('R1 accepted: every later session is given it');
    await page.locator('#rule-R2 button', { hasText: 'Reject' }).click();
    await page.locator('#reject-R2').fill('a size is no rule of this project');
    await page.locator('#rule-R2 button[type=submit]').click();
    await expect.poll(() => page.locator('#rules-said').textContent()).toContain('R2 rejected');
    expect(await page.locator('#proposed-rules h2').textContent()).toBe('No rule waits on you');
    expect(rules().map((r) => [r.id, r.status, r.decided?.note])).toEqual([
      ['R1', 'accepted', undefined],
      ['R2', 'rejected', 'a size is no rule of this project'],
    ]);
    expect(rules()[0]?.decided?.by).toMatch(/^dashboard \(127\.0\.0\.1/);
    expect(fs.readFileSync(path.join(root, 'prompts', 'rules.md'), 'utf8')).toContain(
      'Never edit generated files under dist/.',
    );
  });

  it('lists the accepted rule in the Report view, with what it achieved', async () => {
    await page.evaluate("location.hash = '#/report'");
    await page.locator('#rules').waitFor();
    const text = (await page.locator('#rules').textContent()) ?? '';
    expect(text).toContain('1 accepted from your decisions');
    expect(text).toContain('R1 Never edit generated files under dist/.');
    await page.screenshot({ path: path.join(ARTIFACTS, 'rules-report-1440.png'), fullPage: true });
  });
});
