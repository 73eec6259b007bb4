import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from './fake-openai.js';
import { OPENAI_TEST_KEY } from './real-codex.js';
import { makeWorkspace, tempDir } from './workspace.js';

/** The real opencode CLI, pinned as a devDependency. */
export const REAL_OPENCODE = fileURLToPath(
  new URL('../../node_modules/.bin/opencode', import.meta.url),
);

let current: FakeOpenAi | undefined;

/** Closes each test's fake API after it (call once at the top of an e2e file). */
export function closeFakeOpencodeApiAfterEach(): void {
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
}

/** USD per million tokens that opencode's provider gives the fake model: it prices each step. */
export const FAKE_MODEL_COST = { input: 1, output: 10, cache_read: 0.1 };

/**
 * The environment that points the real opencode at the fake chat API: a provider of its own
 * in OPENCODE_CONFIG_CONTENT (the key read from OPENAI_API_KEY, so ralph knows it as a secret),
 * offline (no model list, no updates, no sharing), in a throw-away HOME.
 */
export async function opencodeEnv(api: FakeOpenAi): Promise<Record<string, string>> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: await tempDir('ralph-home-'),
    OPENAI_API_KEY: OPENAI_TEST_KEY,
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_SHARE: 'true',
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: {
        ralphtest: {
          npm: '@ai-sdk/openai-compatible',
          name: 'ralph test',
          options: { baseURL: api.url, apiKey: '{env:OPENAI_API_KEY}' },
          models: { 'fake-model': { name: 'fake model', cost: FAKE_MODEL_COST } },
        },
      },
      model: 'ralphtest/fake-model',
    }),
  };
}

/**
 * A workspace whose items run on the real opencode CLI, pointed at a fresh fake chat API that
 * answers with `respond`; `env` is what ralph must be run with.
 */
export async function realOpencodeWorkspace(
  respond: Parameters<typeof startFakeOpenAi>[0],
  config: Record<string, unknown> = {},
): Promise<{ root: string; env: Record<string, string>; api: FakeOpenAi }> {
  current = await startFakeOpenAi(respond);
  const root = await makeWorkspace({
    clis: { opencode: { command: [REAL_OPENCODE] } },
    ...config,
    defaults: { cli: 'opencode', ...(config.defaults as object | undefined) },
  });
  return { root, api: current, env: await opencodeEnv(current) };
}
