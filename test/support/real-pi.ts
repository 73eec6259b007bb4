import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from './fake-openai.js';
import { OPENAI_TEST_KEY } from './real-codex.js';
import { makeWorkspace, tempDir } from './workspace.js';

/** The real pi CLI, pinned as a devDependency. */
export const REAL_PI = fileURLToPath(new URL('../../node_modules/.bin/pi', import.meta.url));

let current: FakeOpenAi | undefined;

/** Closes each test's fake API after it (call once at the top of an e2e file). */
export function closeFakePiApiAfterEach(): void {
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
}

/**
 * A throw-away HOME for pi: a provider of its own in `~/.pi/agent/models.json` pointed at the
 * fake chat API (its key read from OPENAI_API_KEY; its model priced at $1 / $10 / $0.10 per
 * million input / output / cached tokens) as the default, and pi's own retries off (ralph's are
 * tested).
 */
export async function piEnv(api: FakeOpenAi): Promise<Record<string, string>> {
  const home = await tempDir('ralph-home-');
  const agentDir = path.join(home, '.pi', 'agent');
  fs.mkdirSync(agentDir, { recursive: true });
  fs.writeFileSync(
    path.join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        ralphtest: {
          baseUrl: api.url,
          api: 'openai-completions',
          apiKey: 'OPENAI_API_KEY',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [
            { id: 'fake-model', cost: { input: 1, output: 10, cacheRead: 0.1, cacheWrite: 0 } },
          ],
        },
      },
    }),
  );
  fs.writeFileSync(
    path.join(agentDir, 'settings.json'),
    JSON.stringify({
      defaultProvider: 'ralphtest',
      defaultModel: 'fake-model',
      retry: { enabled: false },
    }),
  );
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, OPENAI_API_KEY: OPENAI_TEST_KEY };
}

/** Tool rules pi can honour (it has no paths): the defaults without `Edit(./**)`'s path. */
export const PI_TOOLS = ['Bash', 'Read', 'Edit', 'Glob', 'Grep'];

/**
 * A workspace whose items run on the real pi CLI, pointed at a fresh fake chat API that answers
 * with `respond`; `env` is what ralph must be run with.
 */
export async function realPiWorkspace(
  respond: Parameters<typeof startFakeOpenAi>[0],
  config: Record<string, unknown> = {},
): Promise<{ root: string; env: Record<string, string>; api: FakeOpenAi }> {
  current = await startFakeOpenAi(respond);
  const root = await makeWorkspace({
    clis: { pi: { command: [REAL_PI] } },
    ...config,
    defaults: {
      cli: 'pi',
      allowedTools: PI_TOOLS,
      ...(config.defaults as object | undefined),
    },
  });
  return { root, api: current, env: await piEnv(current) };
}
