import { describe, expect, it } from 'vitest';
import { readTranscript } from '../support/transcripts.js';
import type { Invocation } from '../../src/agent/clis/cli.js';
import { DEFAULTS as defaults, invocationFor, settingsFor } from '../support/invocation.js';
import { gemini, geminiPolicy } from '../../src/agent/clis/gemini.js';
import { costOf } from '../../src/agent/cost.js';
import { classify } from '../../src/agent/outcome.js';
import { explicitSettings, resolveSettings } from '../../src/agent/settings.js';
import type { SessionSettings } from '../../src/config/schema.js';

const read = (name: string) => readTranscript('gemini', name);

const exit = (code: number) => ({ code, signal: null });
const settingsOf = (layer: SessionSettings = {}) => settingsFor('gemini', layer);

const invocation = (overrides: Partial<Invocation> = {}) => invocationFor('gemini', overrides);

describe('the gemini stream', () => {
  it('reads a text answer streamed in deltas as one message, with its tokens', () => {
    const { lines, summary } = read('text');
    expect(lines.filter((l) => l.kind === 'assistant')).toEqual([
      expect.objectContaining({ texts: ['Hello from gemini, in two chunks.'] }),
    ]);
    expect(summary.assistantMessages).toBe(1);
    expect(summary.lastText).toBe('Hello from gemini, in two chunks.');
    expect(summary.tokens).toEqual({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 200 });
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
    expect(costOf(summary, { input: 1, output: 10 })).toEqual({
      usd: (1000 * 1 + 100 * 10) / 1e6,
      estimated: true,
    });
  });

  it('reads a shell command and its result', () => {
    const { lines, summary } = read('shell');
    expect(summary.toolCalls).toBe(1);
    expect(lines.find((l) => l.kind === 'assistant' && l.toolUses.length > 0)).toMatchObject({
      toolUses: [{ name: 'run_shell_command', input: { command: 'echo made > made.txt' } }],
    });
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
  });

  it.each(['shell-refused', 'plan-refused'])(
    'records a tool gemini did not offer (%s) as a refusal',
    (name) => {
      const { summary } = read(name);
      expect(summary.permissionDenials).toEqual([
        expect.objectContaining({ toolName: 'run_shell_command' }),
      ]);
      expect(classify({ summary, exit: exit(0) }).kind).toBe('permission_denied');
    },
  );

  it.each([
    ['error-500', 'api_error'],
    ['auth-400', 'auth_error'],
    ['rate-limit-429', 'rate_limited'],
  ])('classifies %s as %s', (name, kind) => {
    const { summary } = read(name);
    expect(summary.result?.isError).toBe(true);
    expect(classify({ summary, exit: exit(1) }).kind).toBe(kind);
  });

  it('has no result for a stream cut short', () => {
    expect(read('stalled').summary.result).toBeUndefined();
  });
});

describe('the gemini command', () => {
  it("reads the prompt on stdin, takes ralph's session id, and gets the rules as a policy file", () => {
    const { argv, files } = gemini.command(invocation());
    expect(argv).toEqual({
      file: 'gemini',
      args: [
        '-p',
        'Begin.',
        '-o',
        'stream-json',
        '--skip-trust',
        '--approval-mode',
        'default',
        '--policy',
        '/ws/docs/sessions/s-policy.toml',
        '--session-id',
        '11111111-2222-4333-8444-555555555555',
      ],
      stdinFile: '/ws/docs/sessions/s-prompt.md',
    });
    expect(files).toEqual([
      { path: '/ws/docs/sessions/s-policy.toml', text: geminiPolicy(settingsOf()) },
    ]);
  });

  it('maps claude rules onto gemini tools: a Bash prefix, edits in the work dir, denials first', () => {
    const policy = geminiPolicy(
      settingsOf({
        allowedTools: ['Bash(git *)', 'Edit(./**)', 'Read'],
        disallowedTools: ['WebFetch'],
      }),
    );
    expect(policy).toContain(
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git"\ndecision = "allow"\npriority = 500\nallowRedirection = true\n',
    );
    expect(policy).toContain('toolName = "write_file"\ndecision = "allow"');
    expect(policy).toContain('toolName = "replace"\ndecision = "allow"');
    expect(policy).toContain('toolName = "web_fetch"\ndecision = "deny"\npriority = 900');
    expect(policy).not.toContain('read_file');
  });

  it('denies the web tools unless a rule allows them, and a lean session the interactive ones', () => {
    const deny = (name: string) => `toolName = "${name}"\ndecision = "deny"\npriority = 100`;
    const closed = geminiPolicy(settingsOf());
    expect(closed).toContain(deny('google_web_search'));
    expect(closed).toContain(deny('web_fetch'));
    expect(closed).not.toContain('update_topic');
    // A rule that allows the search outranks the closed start.
    expect(geminiPolicy(settingsOf({ allowedTools: ['WebSearch'] }))).toContain(
      'toolName = "google_web_search"\ndecision = "allow"\npriority = 500',
    );
    for (const mode of ['dontAsk', 'acceptEdits'] as const) {
      const lean = geminiPolicy(settingsOf({ lean: true, permissionMode: mode }));
      expect(lean).toContain(deny('update_topic'));
      expect(lean).toContain(deny('enter_plan_mode'));
    }
    expect(geminiPolicy(settingsOf({ lean: true, permissionMode: 'default' }))).not.toContain(
      'update_topic',
    );
  });

  it('maps plan, acceptEdits and bypass onto approval modes, and resumes a session', () => {
    const mode = (layer: SessionSettings, yolo = false) => {
      const { args } = gemini.command(invocation({ settings: settingsOf(layer), yolo })).argv;
      return args[args.indexOf('--approval-mode') + 1];
    };
    expect(mode({ permissionMode: 'plan' })).toBe('plan');
    expect(mode({ permissionMode: 'acceptEdits' })).toBe('auto_edit');
    expect(mode({}, true)).toBe('yolo');
    const { args } = gemini.command(invocation({ resume: 'earlier' })).argv;
    expect(args.slice(-2)).toEqual(['--resume', 'earlier']);
    expect(args).not.toContain('--session-id');
  });

  it('refuses what it cannot say: a budget, tool removal, a path rule, an unknown tool', () => {
    const layers: SessionSettings[] = [
      { cli: 'gemini', maxBudgetUsd: 1, tools: ['Read'], allowedTools: ['Edit(src/**)', 'Task'] },
    ];
    const settings = resolveSettings(defaults, layers, (p) => p);
    expect(gemini.refusals(settings, explicitSettings(layers))).toEqual([
      expect.stringContaining('maxBudgetUsd cannot be honoured'),
      expect.stringContaining('tools cannot be honoured'),
      'gemini cannot limit Edit to "src/**" (only "./**", its work dir)',
      'gemini has no tool for the rule "Task"',
    ]);
    expect(gemini.refusals(settingsOf(), { cli: 'gemini' })).toEqual([]);
  });
});
