// A broken login is found before the night, no token and no session spent: the real claude CLI
// against the fake Anthropic API, its key shown to the API's list of models, its own
// `claude auth status` asked when it has no key. A CLI that surely cannot log in is held, and
// the night, whose items have no other CLI, is paused with the reason.
import { describe, expect, it } from 'vitest';
import { startFakeAnthropic, claudeEnv } from '../support/fake-anthropic.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  tempDir,
} from '../support/workspace.js';

const KEY = 'sk-ant-test-dummy-key-0123456789';

async function night(refusedKey?: string, withoutKey = false) {
  const api = await startFakeAnthropic(() => ({ kind: 'text', text: 'Done.' }), { refusedKey });
  const root = await makeWorkspace({
    clis: { claude: { command: [REAL_CLAUDE] } },
    run: { checkLogins: true },
  });
  const env: Record<string, string | undefined> = claudeEnv(api, await tempDir('ralph-home-'));
  if (withoutKey) env.ANTHROPIC_API_KEY = undefined;
  await ralph(root, ['add', 'Say done', '--id', 'done'], env);
  const doctor = await ralph(root, ['doctor'], env);
  const run = await ralph(root, ['run', '--drain'], env);
  await api.close();
  const messages = api.requests.filter((r) => r.url.startsWith('/v1/messages'));
  return { root, run, api, messages, doctor };
}

describe('a login checked before the night', () => {
  it('finds a key the API refuses, and pauses the night before any session', async () => {
    const { root, run, messages, doctor } = await night(KEY);
    // Found in the evening too.
    expect(doctor.stdout).toMatch(/FAIL +auth +claude: its API refused the key \(HTTP 401/);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('claude: its API refused the key (HTTP 401: invalid x-api-key)');
    expect(run.stderr).toContain(
      'item done runs on claude alone: log it in, then run "ralph resume"',
    );
    expect(run.stdout + run.stderr).toContain('login_failed');
    expect(messages).toEqual([]);
    expect(readSessions(root)).toEqual([]);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('asks claude auth status when there is no key: not logged in is found the same way', async () => {
    const { root, run, messages } = await night(undefined, true);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('claude auth status: not logged in');
    expect(messages).toEqual([]);
    expect(readSessions(root)).toEqual([]);
  });

  it('lets a key the API takes through: the list of models asked, then the night runs', async () => {
    const { root, run, api } = await night();
    expect(run.code, run.stderr).toBe(0);
    expect(
      api.requests.filter((r) => r.method === 'GET' && r.url === '/v1/models?limit=1').length,
    ).toBeGreaterThanOrEqual(1);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });
});
