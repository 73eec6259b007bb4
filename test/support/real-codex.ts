import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from './fake-openai.js';
import { makeWorkspace, tempDir } from './workspace.js';

/** The real codex CLI, pinned as a devDependency. */
export const REAL_CODEX = fileURLToPath(new URL('../../node_modules/.bin/codex', import.meta.url));

let current: FakeOpenAi | undefined;

/** Closes each test's fake API after it (call once at the top of an e2e file). */
export function closeFakeOpenAiAfterEach(): void {
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
}

/**
 * codex's command pointed at the fake through a model provider of its own (the way a user
 * points it at a proxy), with codex's own retries off so that ralph's are what is tested.
 */
export function codexCommand(api: FakeOpenAi): string[] {
  const provider = (key: string, value: string) => [
    '-c',
    `model_providers.ralphtest.${key}=${value}`,
  ];
  return [
    REAL_CODEX,
    '-c',
    'model_provider="ralphtest"',
    ...provider('name', '"ralph test"'),
    ...provider('base_url', JSON.stringify(api.url)),
    ...provider('env_key', '"OPENAI_API_KEY"'),
    ...provider('request_max_retries', '0'),
    ...provider('stream_max_retries', '0'),
  ];
}

/** A fake key in the shape of a real one, so that redaction of it can be checked. */
export const OPENAI_TEST_KEY = 'sk-proj-test-dummy-key-0123456789abcdef';

/**
 * A workspace whose items run on the real codex CLI, pointed at a fresh fake Responses API that
 * answers with `respond`; `env` is what ralph must be run with (throw-away HOME, dummy key).
 */
export async function realCodexWorkspace(
  respond: Parameters<typeof startFakeOpenAi>[0],
  config: Record<string, unknown> = {},
): Promise<{ root: string; env: Record<string, string>; api: FakeOpenAi }> {
  current = await startFakeOpenAi(respond);
  const root = await makeWorkspace({
    clis: { codex: { command: codexCommand(current) } },
    ...config,
    defaults: { cli: 'codex', ...(config.defaults as object | undefined) },
  });
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: await tempDir('ralph-home-'),
    OPENAI_API_KEY: OPENAI_TEST_KEY,
  };
  return { root, api: current, env };
}
