// A broken login found before the night for the other CLIs, no session spent: gemini's key shown
// to the fake Gemini API's list of models (refused as Google refuses one: 400, API_KEY_INVALID),
// and the real codex asked `codex login status` in a HOME with no login and no key.
import { describe, expect, it } from 'vitest';
import { startFakeGemini } from '../support/fake-gemini.js';
import { GEMINI_TEST_KEY, geminiCommand, geminiEnv } from '../support/real-gemini.js';
import { codexCommand } from '../support/real-codex.js';
import { startFakeOpenAi } from '../support/fake-openai.js';
import { makeWorkspace, ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';

describe('a login checked before the night, gemini', () => {
  async function night(refused: boolean) {
    const api = await startFakeGemini(() => ({ kind: 'text', text: 'Done.' }), {
      refusedKey: refused ? GEMINI_TEST_KEY : undefined,
    });
    const root = await makeWorkspace({
      clis: { gemini: { command: geminiCommand() } },
      defaults: { cli: 'gemini' },
      run: { checkLogins: true },
    });
    const env = await geminiEnv(api);
    await ralph(root, ['add', 'Say done', '--id', 'done'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    await api.close();
    return { root, run, api };
  }

  it('finds a key its API refuses, and pauses the night before any session', async () => {
    const { root, run, api } = await night(true);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('gemini: its API refused the key (HTTP 400');
    expect(run.stderr).toContain('item done runs on gemini alone');
    expect(api.modelLists).toEqual([GEMINI_TEST_KEY]);
    expect(api.requests).toEqual([]);
    expect(readSessions(root)).toEqual([]);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('lets a key its API takes through, and the night runs', async () => {
    const { root, run, api } = await night(false);
    expect(run.code, run.stderr).toBe(0);
    expect(api.modelLists.length).toBeGreaterThanOrEqual(1);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });
});

describe('a login checked before the night, codex', () => {
  it('asks codex login status when it has no key: not logged in pauses the night, no session spent', async () => {
    const api = await startFakeOpenAi(() => ({ kind: 'text', text: 'Done.' }));
    const root = await makeWorkspace({
      clis: { codex: { command: codexCommand(api) } },
      defaults: { cli: 'codex' },
      run: { checkLogins: true },
    });
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: await tempDir('ralph-home-') };
    await ralph(root, ['add', 'Say done', '--id', 'done'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    await api.close();
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(
      /codex login status: .*\(run "codex login", or set OPENAI_API_KEY\)/,
    );
    expect(api.requests).toEqual([]);
    expect(readSessions(root)).toEqual([]);
  });
});
