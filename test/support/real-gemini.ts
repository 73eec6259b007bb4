import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { startFakeGemini, type FakeGemini } from './fake-gemini.js';
import { makeWorkspace, tempDir } from './workspace.js';

/** The real gemini CLI, pinned as a devDependency. */
export const REAL_GEMINI = fileURLToPath(
  new URL('../../node_modules/.bin/gemini', import.meta.url),
);

let current: FakeGemini | undefined;

/** Closes each test's fake API after it (call once at the top of an e2e file). */
export function closeFakeGeminiAfterEach(): void {
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
}

/** A fake key in the shape of a real one, so that redaction of it can be checked. */
export const GEMINI_TEST_KEY = 'AIzaSy-test-dummy-key-0123456789abcdef';

/**
 * A throw-away HOME for gemini: the API key as its auth (a custom base URL would otherwise make
 * it ask for a gateway login), no retries of its own (ralph's are tested), no usage statistics.
 */
export async function geminiHome(): Promise<string> {
  const home = await tempDir('ralph-home-');
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { maxAttempts: 1, disableAutoUpdate: true },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
  return home;
}

/** The environment that points the real gemini CLI at the fake API. */
export async function geminiEnv(api: FakeGemini): Promise<Record<string, string>> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: await geminiHome(),
    GEMINI_API_KEY: GEMINI_TEST_KEY,
    GOOGLE_GEMINI_BASE_URL: api.url,
  };
}

/** gemini's command with one model, so that it asks no routing model which to use. */
export const geminiCommand = () => [REAL_GEMINI, '-m', 'gemini-2.5-flash'];

/**
 * A workspace whose items run on the real gemini CLI, pointed at a fresh fake Gemini API that
 * answers with `respond`; `env` is what ralph must be run with.
 */
export async function realGeminiWorkspace(
  respond: Parameters<typeof startFakeGemini>[0],
  config: Record<string, unknown> = {},
): Promise<{ root: string; env: Record<string, string>; api: FakeGemini }> {
  current = await startFakeGemini(respond);
  const root = await makeWorkspace({
    clis: { gemini: { command: geminiCommand() } },
    ...config,
    defaults: { cli: 'gemini', ...(config.defaults as object | undefined) },
  });
  return { root, api: current, env: await geminiEnv(current) };
}
