import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { REAL_CODEX } from '../support/real-codex.js';
import { ralph, tempDir } from '../support/workspace.js';

const withKey = { ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' };

describe('ralph doctor', () => {
  it('passes on a healthy workspace, one line per check', async () => {
    const { root, env } = await guardedWorkspace();
    const { code, stdout } = await ralph(root, ['doctor'], { ...env, ...withKey });
    expect(code, stdout).toBe(0);
    for (const check of [
      'config',
      'writable',
      'disk',
      'queue',
      'template',
      'instructions',
      'pause',
      'runner',
      'claude',
      'version',
      'auth',
    ]) {
      expect(stdout).toMatch(new RegExp(`^ok +${check} `, 'm'));
    }
    expect(stdout).toMatch(/^ok +version +claude 2\.1\.330$/m);
    expect(stdout).toMatch(/^ok +auth +ANTHROPIC_API_KEY is set/m);
    expect(stdout).not.toContain('sk-ant-doctor-test-key');
    expect(stdout.trim().split('\n').at(-1)).toBe('All checks passed.');
  });

  it('checks git in git mode and the program of each gate', async () => {
    const { root, env } = await guardedWorkspace({
      git: { enabled: true },
      gates: [['sh', '-c', 'true'], { name: 'lint', command: ['no-such-linter', '--all'] }],
    });
    const { code, stdout } = await ralph(root, ['doctor'], { ...env, ...withKey });
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ok +git +\/\S+git$/m);
    expect(stdout).toMatch(/^ok +gate +sh -c true \(\/\S+\/sh, timeout 600 s\)$/m);
    expect(stdout).toMatch(/^FAIL +gate +gate "lint": no program "no-such-linter" on the PATH$/m);
  });

  it('reports a missing binary', async () => {
    const { root, env } = await guardedWorkspace({
      clis: { claude: { command: ['no-such-claude-binary'] } },
    });
    const { code, stdout } = await ralph(root, ['doctor'], { ...env, ...withKey });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^FAIL +claude +no-such-claude-binary not found \(PATH or "clis.claude.command" in ralph.config.json; install: npm install -g @anthropic-ai\/claude-code\)$/m,
    );
  });

  it('reports a version outside the tested range', async () => {
    const { root, env } = await guardedWorkspace();
    const { code, stdout } = await ralph(root, ['doctor'], {
      ...env,
      ...withKey,
      FAKE_CLAUDE_VERSION: '3.0.1',
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^FAIL +version +claude 3\.0\.1 is outside the range ralph is tested with \(2\.1\.x\)$/m,
    );
  });

  it('reports an invalid queue, a bad template and missing credentials', async () => {
    const { root, env } = await guardedWorkspace();
    fs.writeFileSync(
      path.join(root, 'state', 'queue.json'),
      '{"version": 1, "items": [{"id": "../x", "title": "t"}]}',
    );
    fs.appendFileSync(path.join(root, 'prompts', 'bootstrap.md'), '{{TYPO}}');
    const { code, stdout } = await ralph(root, ['doctor'], { ...env, HOME: await tempDir() });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^FAIL +queue +.*queue\.json is invalid: item "\.\.\/x" \(items\[0\]\)\.id: an id is 1 to 100/m,
    );
    expect(stdout).toMatch(/^FAIL +template +.*bootstrap\.md: unknown placeholders \{\{TYPO\}\}$/m);
    expect(stdout).toMatch(/^FAIL +auth +claude: no credentials/m);
  });

  it("says what an item's placeholder in the standing instructions costs: the prompt cache", async () => {
    const { root, env } = await guardedWorkspace();
    fs.appendFileSync(
      path.join(root, 'prompts', 'instructions.md'),
      '\nYou work on {{ITEM_TITLE}}.\n',
    );
    const { stdout } = await ralph(root, ['doctor'], { ...env, ...withKey });
    expect(stdout).toMatch(
      /^warn +instructions +.*instructions\.md uses \{\{ITEM_TITLE\}\}: each item's system prompt then differs/m,
    );
  });

  it('checks every CLI the workspace uses: its default and those its items name', async () => {
    const { root, env } = await guardedWorkspace({ clis: { codex: { command: [REAL_CODEX] } } });
    await ralph(root, ['add', 'On codex', '--cli', 'codex'], env);
    const without = await ralph(root, ['doctor'], { ...env, ...withKey, HOME: await tempDir() });
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(/^ok +version +claude 2\.1\.330$/m);
    expect(without.stdout).toMatch(/^ok +codex +.*node_modules\/\.bin\/codex$/m);
    expect(without.stdout).toMatch(/^ok +version +codex 0\.169\.0$/m);
    expect(without.stdout).toMatch(
      /^FAIL +auth +codex: no credentials: set OPENAI_API_KEY or CODEX_API_KEY, or run "codex login"$/m,
    );
    const { code, stdout } = await ralph(root, ['doctor'], {
      ...env,
      ...withKey,
      OPENAI_API_KEY: 'sk-proj-doctor-test-key',
    });
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^ok +auth +OPENAI_API_KEY is set \(passed to codex\)$/m);
  });

  it('reports an unwritable workspace and a pause', async () => {
    const { root, env } = await guardedWorkspace();
    const sessions = path.join(root, 'docs', 'sessions');
    fs.rmSync(sessions, { recursive: true });
    fs.symlinkSync('/proc/self', sessions); // nobody, root included, can create files there
    await ralph(root, ['pause', 'maintenance']);
    const { code, stdout } = await ralph(root, ['doctor'], { ...env, ...withKey });
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL +writable +.*docs\/sessions: E[A-Z]+$/m);
    expect(stdout).toMatch(/^warn +pause +paused: maintenance \(ralph resume\)$/m);
  });

  it('reports a disk too full to run on', async () => {
    // More free space than any disk has: the check must fail.
    const { root, env } = await guardedWorkspace({ run: { minFreeBytes: 2 ** 52 } });
    const { code, stdout } = await ralph(root, ['doctor'], env);
    expect(code).not.toBe(0);
    expect(stdout).toMatch(/^FAIL +disk +the disk is almost full: .* ralph would pause$/m);
  });

  it('reports an invalid configuration and a directory that is not a workspace', async () => {
    const dir = await tempDir();
    fs.writeFileSync(path.join(dir, 'ralph.config.json'), '{"colour": 1}');
    const { code, stdout } = await ralph(dir, ['doctor'], withKey);
    expect(code).toBe(2);
    expect(stdout).toMatch(
      /^FAIL +config +.*ralph\.config\.json is invalid: \(top level\): unknown key "colour"/m,
    );
    expect(stdout).toMatch(/^FAIL +workspace +.* is not a ralph workspace \(run "ralph init"\)$/m);
    // Nothing is said of defaults the file does not hold: no CLI, sandbox or budget line.
    expect(stdout).not.toMatch(/^(ok|warn|FAIL) +(claude|sandbox|budget|version|auth)/m);
    expect(stdout).toContain('The other checks need a valid configuration');
  });
});
