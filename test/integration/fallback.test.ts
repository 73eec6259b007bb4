// Fallback settings as a person writes them: refused when they name the item's own CLI or an
// unknown one (at load, at add), and a fallback CLI that could not take over found by
// `ralph doctor` and at the start of `ralph run`, not at 3 a.m.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedWorkspace, logEvents } from '../support/guarded.js';
import { REAL_CODEX } from '../support/real-codex.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

const withKey = { ANTHROPIC_API_KEY: 'sk-ant-fallback-test-key' };

describe('fallback settings', () => {
  it('refuses a list naming the CLI it stands in for, or a CLI ralph does not know', async () => {
    const { root, env } = await guardedWorkspace();
    const config = path.join(root, 'ralph.config.json');
    const before = fs.readFileSync(config, 'utf8');
    // The workspace's own CLI in its own list.
    fs.writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(before), defaults: { fallback: { clis: ['claude'] } } }),
    );
    const own = await ralph(root, ['ls'], env);
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(
      /defaults\.fallback\.clis\[0\]: "claude" is the workspace's own CLI \(defaults\.cli\)/,
    );
    fs.writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(before), defaults: { fallback: { clis: ['kodex'] } } }),
    );
    const unknown = await ralph(root, ['ls'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/defaults\.fallback\.clis\[0\]/);
    fs.writeFileSync(config, before);

    // An item's own list, at add: its own CLI, an unknown one; the queue is left as it was.
    const item = await ralph(
      root,
      ['add', 'On codex', '--cli', 'codex', '--fallback', 'codex'],
      env,
    );
    expect(item.code).toBe(2);
    expect(item.stderr).toMatch(/fallback\.clis names "codex", the CLI the item runs on/);
    const bad = await ralph(root, ['add', 'Unknown', '--fallback', 'claude,kodex'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fallback/);
    expect(readQueue(root).items).toEqual([]);

    // A persona's: its own CLI in its list.
    fs.writeFileSync(
      path.join(root, 'agents', 'AGENT_coder.md'),
      '---\ncli: codex\nfallback:\n  clis: [gemini, codex]\n---\nCode.\n',
    );
    const persona = await ralph(root, ['add', 'By a persona', '--agent', 'coder'], env);
    expect(persona.code).toBe(2);
    expect(persona.stderr).toMatch(
      /AGENT_coder\.md \(frontmatter\): fallback\.clis\.1: "codex" is the persona's own CLI/,
    );

    // A good list, with a model, is kept on the item as given.
    const good = await ralph(
      root,
      ['add', 'Falls back', '--id', 'good', '--fallback', 'codex:gpt-5,gemini'],
      env,
    );
    expect(good.code, good.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({
      fallback: { clis: [{ cli: 'codex', model: 'gpt-5' }, 'gemini'] },
    });
  });

  it('is checked by doctor and at the start of run: a fallback not installed stops the run before it starts', async () => {
    const { root, env } = await guardedWorkspace({
      clis: { codex: { command: [path.join(await tempDir(), 'no-such-codex')] } },
      defaults: { fallback: { clis: ['codex'] } },
    });
    await ralph(root, ['add', 'Waits', '--id', 'waits'], env);
    const doctor = await ralph(root, ['doctor'], { ...env, ...withKey });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL +codex +.*no-such-codex not found/m);

    const run = await ralph(root, ['run', '--drain'], { ...env, ...withKey });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /the fallback CLI codex \(defaults\.fallback\) is not installed: .*no-such-codex not found/,
    );
    // Nothing ran: the item waits as it was.
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('says at the start of run when a fallback shows no login, and runs', async () => {
    const { root, env } = await guardedWorkspace({ clis: { codex: { command: [REAL_CODEX] } } });
    await ralph(root, ['add', 'Falls back to codex', '--id', 'item', '--fallback', 'codex'], env);
    const home = await tempDir();
    const doctor = await ralph(root, ['doctor'], { ...env, ...withKey, HOME: home });
    expect(doctor.stdout).toMatch(/^FAIL +auth +codex: no credentials/m);
    const run = await ralph(root, ['run', '--drain'], { ...env, HOME: home });
    expect(run.code, run.stderr).toBe(0);
    const unready = logEvents(root).find((e) => e.event === 'fallback_unready');
    expect(unready?.cli).toBe('codex');
    expect(String(unready?.problem)).toMatch(/item item\) may not log in: codex: no credentials/);
  });
});
