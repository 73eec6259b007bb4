import { afterEach } from 'vitest';
import { claudeEnv, startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';
import { REAL_CLAUDE, makeWorkspace, tempDir } from './workspace.js';

let current: FakeAnthropic | undefined;

/** Closes each test's fake API after it (call once at the top of an e2e file). */
export function closeFakeApiAfterEach(): void {
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
}

/**
 * A workspace whose claude is the real CLI, pointed at a fresh fake Anthropic API that answers
 * with `respond`; `env` is what ralph must be run with (throw-away HOME, dummy key, offline).
 */
export async function realClaudeWorkspace(
  respond: Parameters<typeof startFakeAnthropic>[0],
  config: Record<string, unknown> = {},
): Promise<{ root: string; env: Record<string, string>; api: FakeAnthropic }> {
  current = await startFakeAnthropic(respond);
  const root = await makeWorkspace({ clis: { claude: { command: [REAL_CLAUDE] } }, ...config });
  return { root, api: current, env: claudeEnv(current, await tempDir('ralph-home-')) };
}
