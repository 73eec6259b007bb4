import type { Invocation } from '../../src/agent/clis/cli.js';
import { resolveSettings } from '../../src/agent/settings.js';
import type { CliName } from '../../src/config/cli-names.js';
import { ConfigSchema, type SessionSettings } from '../../src/config/schema.js';

/** The workspace defaults of a fresh configuration. */
export const DEFAULTS = ConfigSchema.parse({}).defaults;

/** A CLI's settings: the defaults under `layer`, paths under /ws. */
export const settingsFor = (cli: CliName, layer: SessionSettings = {}) =>
  resolveSettings(DEFAULTS, [{ cli, ...layer }], (p) => `/ws/${p}`);

/** The invocation of one session of `cli` in a workspace at /ws, with `overrides`. */
export function invocationFor(cli: CliName, overrides: Partial<Invocation> = {}): Invocation {
  return {
    command: [cli],
    initialPrompt: 'Begin.',
    title: 'A task (a-task)',
    promptFile: '/ws/docs/sessions/s-prompt.md',
    system: {
      file: '/ws/docs/sessions/s-system.md',
      text: '# Identity\n\nralph\n',
      assignment: '# Assignment\n\nThe task.\n',
    },
    policyFile: '/ws/docs/sessions/s-policy.toml',
    inputFile: '/ws/docs/sessions/s-input.jsonl',
    sessionId: '11111111-2222-4333-8444-555555555555',
    settings: settingsFor(cli),
    yolo: false,
    sandboxed: false,
    env: {},
    ...overrides,
  };
}
