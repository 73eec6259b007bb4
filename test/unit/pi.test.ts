import { describe, expect, it } from 'vitest';
import { readTranscript } from '../support/transcripts.js';
import type { Invocation } from '../../src/agent/clis/cli.js';
import { pi, piTools } from '../../src/agent/clis/pi.js';
import { costOf } from '../../src/agent/cost.js';
import { classify } from '../../src/agent/outcome.js';
import { explicitSettings, resolveSettings } from '../../src/agent/settings.js';
import type { SessionSettings } from '../../src/config/schema.js';
import { DEFAULTS, invocationFor, settingsFor } from '../support/invocation.js';

const read = (name: string) => readTranscript('pi', name);

const exit = (code: number) => ({ code, signal: null });
const RULES = ['Bash', 'Read', 'Edit', 'Glob', 'Grep'];
const settingsOf = (layer: SessionSettings = {}) =>
  settingsFor('pi', { allowedTools: RULES, ...layer });
const invocation = (overrides: Partial<Invocation> = {}) =>
  invocationFor('pi', { settings: settingsOf(), ...overrides });

describe('the pi stream', () => {
  it('reads a text answer: its session, its tokens and the cost pi reports', () => {
    const { lines, summary } = read('text');
    expect(summary.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.filter((l) => l.kind === 'assistant')).toEqual([
      expect.objectContaining({ texts: ['Hello from pi.'] }),
    ]);
    expect(summary.tokens).toEqual({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 200 });
    expect(summary.reportedCostUsd).toBeCloseTo((800 + 200 * 0.1 + 100 * 10) / 1e6, 12);
    expect(costOf(summary, undefined)?.estimated).toBe(false);
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
  });

  it('reads a shell call and its result', () => {
    const { lines, summary } = read('shell');
    expect(summary.toolCalls).toBe(1);
    expect(lines.find((l) => l.kind === 'assistant' && l.toolUses.length > 0)).toMatchObject({
      toolUses: [{ name: 'bash', input: { command: 'echo made > made.txt' } }],
    });
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
  });

  it('records a tool pi was not given as a refusal', () => {
    const { summary } = read('shell-not-given');
    expect(summary.permissionDenials).toEqual([expect.objectContaining({ toolName: 'bash' })]);
    expect(classify({ summary, exit: exit(0) }).kind).toBe('permission_denied');
  });

  it.each([
    ['error-500', 'api_error', 500],
    ['auth-401', 'auth_error', 401],
    ['rate-limit-429', 'rate_limited', 429],
  ])('classifies %s as %s although pi exits 0', (name, kind, status) => {
    const { summary } = read(name);
    expect(summary.result).toMatchObject({ isError: true, apiErrorStatus: status });
    expect(classify({ summary, exit: exit(0) }).kind).toBe(kind);
  });

  it('has no result for a run cut short', () => {
    const { summary } = read('stalled');
    expect(summary.toolCalls).toBe(1);
    expect(summary.result).toBeUndefined();
  });
});

describe('the pi command', () => {
  it('has the prompt appended to its system prompt and is given only the allowed tools', () => {
    expect(pi.command(invocation()).argv).toEqual({
      file: 'pi',
      args: [
        '-p',
        '--mode',
        'json',
        '--offline',
        '--tools',
        'read,bash,edit,write,grep,find,ls',
        '--append-system-prompt',
        '/ws/docs/sessions/s-prompt.md',
        'Begin.',
      ],
    });
    const { args } = pi.command(invocation({ resume: 'abc' })).argv;
    expect(args.slice(-5, -2)).toEqual(['--session', 'abc', '--append-system-prompt']);
  });

  it('maps rules, plan, tools and bypass onto its tool list', () => {
    expect(piTools(settingsOf({ disallowedTools: ['Bash', 'Edit'] }), false)).toEqual([
      'read',
      'grep',
      'find',
      'ls',
    ]);
    expect(piTools(settingsOf({ permissionMode: 'plan' }), false)).toEqual([
      'read',
      'grep',
      'find',
      'ls',
    ]);
    expect(piTools(settingsOf({ tools: ['Read', 'Bash'] }), false)).toEqual(['read', 'bash']);
    expect(piTools(settingsOf({ allowedTools: [] }), true)).toHaveLength(7);
    expect(
      pi.command(invocation({ settings: settingsOf({ allowedTools: [] }) })).argv.args,
    ).toContain('--no-tools');
  });

  it('refuses rules with paths or commands, but takes the built-in allowlist without its path', () => {
    const layers: SessionSettings[] = [{ cli: 'pi', allowedTools: ['Bash(git *)', 'Task'] }];
    const settings = resolveSettings(DEFAULTS, layers, (p) => p);
    expect(pi.refusals(settings, explicitSettings(layers))).toEqual([
      expect.stringContaining('pi cannot hold Bash to "git *"'),
      'pi has no tool for the rule "Task"',
    ]);
    const defaults = resolveSettings(DEFAULTS, [{ cli: 'pi' }], (p) => p);
    expect(pi.refusals(defaults, { cli: 'pi' })).toEqual([]);
    expect(piTools(defaults, false)).toEqual([
      'read',
      'bash',
      'edit',
      'write',
      'grep',
      'find',
      'ls',
    ]);
    // A workspace allowlist of the person's own with a path is refused all the same.
    const scoped = resolveSettings(
      { ...DEFAULTS, allowedTools: ['Read', 'Edit(./src/**)'] },
      [{ cli: 'pi' }],
      (p) => p,
    );
    expect(pi.refusals(scoped, { cli: 'pi' })).toEqual([
      expect.stringContaining('pi cannot hold Edit to "./src/**"'),
    ]);
  });
});
