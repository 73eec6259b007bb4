import { describe, expect, it } from 'vitest';
import { readTranscript } from '../support/transcripts.js';
import type { Invocation } from '../../src/agent/clis/cli.js';
import { opencode, opencodePermission } from '../../src/agent/clis/opencode.js';
import { costOf } from '../../src/agent/cost.js';
import { classify } from '../../src/agent/outcome.js';
import { explicitSettings, resolveSettings } from '../../src/agent/settings.js';
import type { SessionSettings } from '../../src/config/schema.js';
import { DEFAULTS, invocationFor, settingsFor } from '../support/invocation.js';

const read = (name: string) => readTranscript('opencode', name);

const exit = (code: number) => ({ code, signal: null });
const settingsOf = (layer: SessionSettings = {}) => settingsFor('opencode', layer);
const invocation = (overrides: Partial<Invocation> = {}) => invocationFor('opencode', overrides);

describe('the opencode stream', () => {
  it('reads a text answer: its session, its tokens and the cost opencode reports', () => {
    const { summary } = read('text');
    expect(summary.conversationId).toMatch(/^ses_/);
    expect(summary.lastText).toBe('Hello from opencode.');
    // opencode counts cached input apart; ralph's input includes it.
    expect(summary.tokens).toEqual({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 200 });
    expect(summary.reportedCostUsd).toBeCloseTo((800 + 200 * 0.1 + 100 * 10) / 1e6, 12);
    expect(costOf(summary, undefined)?.estimated).toBe(false);
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
  });

  it('reads a shell call and its result in one event', () => {
    const { lines, summary } = read('shell');
    expect(summary.toolCalls).toBe(1);
    expect(lines.find((l) => l.kind === 'assistant' && l.toolUses.length > 0)).toMatchObject({
      toolUses: [{ name: 'bash', input: { command: 'echo made > made.txt' } }],
    });
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
  });

  it('records a denied tool (a call of "invalid") as a refusal of that tool', () => {
    const { summary } = read('shell-denied');
    expect(summary.permissionDenials).toEqual([expect.objectContaining({ toolName: 'bash' })]);
    expect(classify({ summary, exit: exit(0) }).kind).toBe('permission_denied');
  });

  it.each([
    ['error-500', 'api_error', 500],
    ['auth-401', 'auth_error', 401],
    ['rate-limit-429', 'rate_limited', 429],
  ])('classifies %s as %s', (name, kind, status) => {
    const { summary } = read(name);
    expect(summary.result).toMatchObject({ isError: true, apiErrorStatus: status });
    expect(classify({ summary, exit: exit(1) }).kind).toBe(kind);
  });

  it('has no result for a run cut short before its last step finished', () => {
    const { summary } = read('stalled');
    expect(summary.toolCalls).toBe(1);
    expect(summary.result).toBeUndefined();
  });
});

describe('the opencode command', () => {
  it('reads the prompt on stdin, names the session, and merges its permissions into the config', () => {
    const provider = { provider: { mine: { options: { baseURL: 'http://127.0.0.1:1/v1' } } } };
    const { argv, env } = opencode.command(
      invocation({ env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(provider) } }),
    );
    expect(argv).toEqual({
      file: 'opencode',
      args: ['run', '--format', 'json', '--title', 'A task (a-task)', 'Begin.'],
      stdinFile: '/ws/docs/sessions/s-prompt.md',
    });
    expect(JSON.parse(env?.OPENCODE_CONFIG_CONTENT ?? '')).toEqual({
      ...provider,
      permission: opencodePermission(settingsOf(), false),
    });
    const resumed = opencode.command(invocation({ resume: 'ses_1' })).argv.args;
    expect(resumed).toEqual(['run', '--format', 'json', '--session', 'ses_1', 'Begin.']);
  });

  it('maps claude rules onto permissions over a closed start', () => {
    expect(opencodePermission(settingsOf(), false)).toEqual({
      bash: 'allow',
      edit: 'allow',
      webfetch: 'deny',
      websearch: 'deny',
      external_directory: 'deny',
    });
    expect(
      opencodePermission(
        settingsOf({
          allowedTools: ['Bash(git *)', 'Bash(npm test)', 'Read'],
          disallowedTools: ['Bash(git push)'],
        }),
        false,
      ).bash,
    ).toEqual({ '*': 'deny', 'git *': 'allow', 'npm test *': 'allow', 'git push *': 'deny' });
    expect(opencodePermission(settingsOf({ permissionMode: 'plan' }), false)).toMatchObject({
      bash: 'deny',
      edit: 'deny',
    });
    expect(Object.values(opencodePermission(settingsOf(), true))).toEqual(Array(5).fill('allow'));
  });

  it('denies a lean session the tools of an interactive session, under dontAsk and acceptEdits alone', () => {
    const interactive = { todowrite: 'deny', skill: 'deny' };
    expect(opencodePermission(settingsOf({ lean: true }), false)).toMatchObject(interactive);
    expect(
      opencodePermission(settingsOf({ lean: true, permissionMode: 'acceptEdits' }), false),
    ).toMatchObject({ ...interactive, edit: 'allow' });
    for (const [layer, yolo] of [
      [{ lean: false }, false],
      [{ lean: true, permissionMode: 'default' }, false],
      [{ lean: true }, true],
    ] as const) {
      const permission = opencodePermission(settingsOf(layer), yolo);
      expect(permission, JSON.stringify(layer)).not.toHaveProperty('todowrite');
      expect(permission).not.toHaveProperty('skill');
    }
  });

  it('refuses a rule it cannot say and tool removal, but holds a budget', () => {
    const layers: SessionSettings[] = [
      { cli: 'opencode', maxBudgetUsd: 1, tools: ['Read'], allowedTools: ['Write(docs/**)'] },
    ];
    const settings = resolveSettings(DEFAULTS, layers, (p) => p);
    expect(opencode.refusals(settings, explicitSettings(layers))).toEqual([
      expect.stringContaining('tools cannot be honoured'),
      'opencode cannot limit Write to "docs/**" (only "./**", its work dir)',
    ]);
  });
});
