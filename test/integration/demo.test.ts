// `ralph demo`: a whole night without an account or a network, from the built CLI in an empty
// directory; the items end as scripted, the branches hold the demo agent's commits, and the
// report and the dashboard (headless Chromium, screenshots in test-artifacts/dashboard/) show it.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.js';
import { TEST_RUN_MARKER } from '../support/leak-check.js';
import { startServe, stopServers } from '../support/serve.js';
import { RALPH_BIN, ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await stopServers();
});

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

describe('ralph demo', () => {
  it('runs a whole night with its demo agent, and the report and the dashboard show it', async () => {
    const parent = await tempDir('ralph-demo-');
    const dir = path.join(parent, 'demo');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [RALPH_BIN, 'demo', dir, '--no-serve', '--pace', '0'],
      {
        cwd: parent,
        env: {
          PATH: process.env.PATH,
          HOME: parent,
          [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER],
        },
      },
    );
    const root = path.join(dir, 'night');
    const project = path.join(dir, 'project');
    expect(stdout).toContain(`ralph demo: a night of 6 items on ${project}`);
    expect(stdout).toContain('the night is over (ralph run exited 0)');
    expect(stdout).toContain(`ralph -C ${root} report`);
    // Nothing was made outside the directory it was given (npm may keep its cache in the HOME).
    expect(fs.readdirSync(parent).filter((name) => name !== '.npm')).toEqual(['demo']);
    expect(fs.readdirSync(dir).sort()).toEqual(['night', 'project']);

    const items = new Map(readQueue(root).items.map((i) => [i.id as string, i]));
    for (const id of ['subtract', 'readme', 'cli'])
      expect(items.get(id), id).toMatchObject({ status: 'done', attempts: 1 });
    // Its first fix failed its gate; handed back, the second passed.
    expect(items.get('fix-add')).toMatchObject({ status: 'done', attempts: 2 });
    // Its reviewer sent it back once (its test checked no negative number), then approved it.
    expect(items.get('multiply')).toMatchObject({
      status: 'done',
      attempts: 2,
      reviewRounds: 1,
      verdict: { overall: 'approve', cli: 'claude' },
    });
    // Refused by its allowlist: it waits for a person.
    expect(items.get('changelog')).toMatchObject({ status: 'needs_input' });
    expect(String(items.get('changelog')?.question)).toContain(
      'tools refused by the permission mode: Write',
    );

    const sessions = readSessions(root).filter((s) => s.role !== 'reviewer');
    expect(readSessions(root).filter((s) => s.role === 'reviewer')).toHaveLength(2);
    expect(sessions).toHaveLength(8);
    for (const session of sessions) {
      expect(session.model).toBe('ralph-demo-agent');
      expect(session.result).toMatchObject({ costUsd: 0 });
    }
    expect(sessions.map((s) => (s.outcome as { kind: string }).kind).sort()).toEqual([
      'gate_failed',
      'permission_denied',
      'success',
      'success',
      'success',
      'success',
      'success',
      'success',
    ]);
    // The branches hold the demo agent's own commits, and the target every item that landed.
    expect(git(project, 'log', '--format=%an %s', 'main..ralph/fix-add')).toBe(
      'ralph demo agent add: add the numbers, not their text\nralph demo agent add: put the arguments together',
    );
    expect(
      git(project, 'log', '--format=%s', '--merges', 'main..ralph/landed').split('\n'),
    ).toHaveLength(5);
    const landed = path.join(parent, 'landed');
    git(project, 'worktree', 'add', '--quiet', landed, 'ralph/landed');
    // A fresh worktree has no dependency until it is installed, as the demo's setup does.
    execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: landed });
    for (const test of ['add', 'subtract', 'cli', 'multiply'])
      execFileSync(process.execPath, [`tests/${test}.test.mjs`], { cwd: landed });
    git(project, 'worktree', 'remove', '--force', landed);

    // Its agent needs no account, and doctor says so.
    const doctor = await ralph(root, ['doctor']);
    expect(doctor.stdout).toMatch(/ok {4}auth {9}claude auth status: logged in/);
    const report = await ralph(root, ['report']);
    // The item its allowlist refused never landed: it waits for you.
    expect(report.stdout).toMatch(/Landing: 5 landed, 0 waiting to land, 1 not landed/);
    expect(report.stdout).toMatch(/not landed: changelog waits for you: /);
    expect(report.stdout).toMatch(
      /Reviews: 2 reviews: 1 approved, 1 change request, 0 failed \(0 items unreviewed\)/,
    );
    expect(report.stdout).toMatch(/fix-add\s+2\s+1\s+0\s+1\s+0\s+0\s+\$0\.0000/);

    // An answer alone cannot allow a tool: say refuses it, and says what the item needs.
    const answer = ['say', 'changelog', 'You may write CHANGELOG.md now'];
    const refused = await ralph(root, answer);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/waits for its allowlist, not an answer: it was refused Write/);
    // The demo's closing hint is the commands that work, in order.
    const hint = stdout
      .split('\n')
      .filter((l) => l.startsWith(`  ralph -C ${root} `))
      .slice(-3);
    expect(hint.map((l) => l.trim().split(' ')[3])).toEqual(['edit', 'say', 'run']);

    const served = await startServe(root);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(served.openUrl);
    await page.locator('.column[data-status="needs_input"] .card[data-item="changelog"]').waitFor();
    await page.locator('.card[data-item="fix-add"]').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-board-1440.png'), fullPage: true });
    await page.goto(`${served.base}/#/report`);
    await page.getByText('per landed item').first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-report-1440.png'), fullPage: true });
    // A session says whose it was: the demo agent's, not a model's.
    const first = sessions.find((s) => s.itemId === 'fix-add' && s.status === 'failed');
    await page.goto(`${served.base}/#/sessions/${String(first?.sessionId)}`);
    await page.getByText('· ralph-demo-agent').first().waitFor();
    await page.getByText('gate_failed').first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-session-1440.png'), fullPage: true });
    // The reviewed item's page: each criterion's verdict with its evidence, the reviewer's word.
    await page.goto(`${served.base}/#/items/multiply`);
    await page.locator('#verdict').getByText('approved by claude').waitFor();
    await page.locator('.criteria .verdict.pass').nth(1).waitFor();
    await page.getByText('tests/multiply.test.mjs:5 checks multiply(-2, 3)').waitFor();
    await page.screenshot({
      path: path.join(ARTIFACTS, 'demo-item-review-1440.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({
      path: path.join(ARTIFACTS, 'demo-item-review-390.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 1440, height: 900 });
    // Followed word for word, the hint gets the changelog written and landed.
    for (const line of hint) {
      const args = line.trim().split(' ').slice(3);
      const said = args[0] === 'say' ? answer : args;
      const done = await ralph(root, said, { PATH: process.env.PATH, HOME: parent });
      expect(done.code, `${line}: ${done.stderr}`).toBe(0);
    }
    expect(readQueue(root).items.find((i) => i.id === 'changelog')).toMatchObject({
      status: 'done',
    });
  });
});
