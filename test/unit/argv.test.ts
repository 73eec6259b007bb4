import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/agent/argv.js';
import { claude, claudeArgv } from '../../src/agent/clis/claude.js';
import type { Invocation } from '../../src/agent/clis/cli.js';
import { invocationFor } from '../support/invocation.js';
import { resolveSettings } from '../../src/agent/settings.js';
import { ConfigSchema } from '../../src/config/schema.js';

const defaults = ConfigSchema.parse({}).defaults;

const invocation = (overrides: Partial<Invocation> = {}) => invocationFor('claude', overrides);

describe('claudeArgv', () => {
  it('builds the documented default command', () => {
    expect(claudeArgv(invocation())).toEqual({
      file: 'claude',
      args: [
        '-p',
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--append-system-prompt-file',
        '/ws/docs/sessions/s-system.md',
        '--session-id',
        '11111111-2222-4333-8444-555555555555',
        '--max-turns',
        '50',
        '--max-budget-usd',
        '5',
        '--permission-mode',
        'dontAsk',
        '--allowedTools',
        'Bash,Read,Edit(./**)',
      ],
      stdinFile: '/ws/docs/sessions/s-input.jsonl',
      live: true,
    });
  });

  it('keeps leading arguments of the configured command', () => {
    const { file, args } = claudeArgv(invocation({ command: ['node', '/opt/claude/cli.js'] }));
    expect(file).toBe('node');
    expect(args.slice(0, 2)).toEqual(['/opt/claude/cli.js', '-p']);
  });

  it('passes every override as its flag', () => {
    const settings = resolveSettings(
      defaults,
      [
        {
          model: 'claude-sonnet',
          maxTurns: 7,
          maxBudgetUsd: 0.5,
          tools: ['Read', 'Grep'],
          allowedTools: ['Bash(git *)', 'Read'],
          disallowedTools: ['Write', 'Edit'],
          permissionMode: 'plan',
        },
      ],
      (p) => p,
    );
    const { args } = claudeArgv(invocation({ settings, settingsFile: '/ws/settings.json' }));
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    expect(after('--max-turns')).toBe('7');
    expect(after('--max-budget-usd')).toBe('0.5');
    expect(after('--permission-mode')).toBe('plan');
    expect(after('--tools')).toBe('Read,Grep');
    expect(after('--allowedTools')).toBe('Bash(git *),Read');
    expect(after('--disallowedTools')).toBe('Write,Edit');
    expect(after('--model')).toBe('claude-sonnet');
    expect(after('--settings')).toBe('/ws/settings.json');
  });

  it("leaves the built-in allowlist's Glob and Grep to claude's Read rule, and a list of the user's as written", () => {
    const allowed = (allowedTools?: string[]) => {
      const settings = resolveSettings(defaults, allowedTools ? [{ allowedTools }] : [], (p) => p);
      const { args } = claudeArgv(invocation({ settings }));
      return args[args.indexOf('--allowedTools') + 1];
    };
    expect(allowed()).toBe('Bash,Read,Edit(./**)');
    expect(allowed(['Bash', 'Read', 'Glob', 'Grep'])).toBe('Bash,Read,Glob,Grep');
  });

  it('passes an empty tool list as --tools "" (no tools at all)', () => {
    const settings = resolveSettings(defaults, [{ tools: [], allowedTools: [] }], (p) => p);
    const { args } = claudeArgv(invocation({ settings }));
    expect(args[args.indexOf('--tools') + 1]).toBe('');
    expect(args).not.toContain('--allowedTools');
  });

  it('resumes instead of starting a session when asked', () => {
    const { args } = claudeArgv(invocation({ resume: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' }));
    expect(args).toContain('--resume');
    expect(args).not.toContain('--session-id');
  });

  it('skips permissions only with the explicit yolo opt-in', () => {
    expect(claudeArgv(invocation()).args).not.toContain('--dangerously-skip-permissions');
    const { args } = claudeArgv(invocation({ yolo: true }));
    expect(args).toContain('--dangerously-skip-permissions');
    expect(args).not.toContain('--permission-mode');
  });

  it('never lets the item text become a flag: its first words travel on stdin, as stream-json', () => {
    const first = invocation({ initialPrompt: '--output-format text' });
    const { args } = claudeArgv(first);
    expect(args).not.toContain('--output-format text');
    expect(args.filter((a) => a === '--output-format')).toHaveLength(1);
    const [system, input] = claude.command(first).files ?? [];
    // The part of the prompt without the item's is its system prompt; the item's assignment
    // follows the first words in its first message.
    expect(system).toEqual({
      path: '/ws/docs/sessions/s-system.md',
      text: '# Identity\n\nralph\n',
    });
    expect(input?.path).toBe('/ws/docs/sessions/s-input.jsonl');
    expect(JSON.parse(input?.text ?? '')).toEqual({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'text', text: '--output-format text\n\n# Assignment\n\nThe task.\n' }],
      },
    });
    expect(input?.text.endsWith('\n')).toBe(true);
    // A resumed conversation holds its assignment: its first words alone.
    const [, resumed] =
      claude.command(invocation({ initialPrompt: 'Go on.', resume: 'c-1' })).files ?? [];
    const line = JSON.parse(resumed?.text ?? '') as {
      message: { content: { text: string }[] };
    };
    expect(line.message.content[0]?.text).toBe('Go on.');
  });
});

describe('resolveSettings', () => {
  it('applies item over persona over workspace defaults', () => {
    const persona = { model: 'persona-model', maxTurns: 10, tools: ['Read'] };
    const item = { model: 'item-model' };
    const settings = resolveSettings(defaults, [persona, item], (p) => `/root/${p}`);
    expect(settings.model).toBe('item-model');
    expect(settings.maxTurns).toBe(10);
    expect(settings.tools).toEqual(['Read']);
    expect(settings.maxBudgetUsd).toBe(defaults.maxBudgetUsd);
    expect(settings.workDir).toBe('/root/.');
  });
});

describe('shellQuote', () => {
  it('quotes arguments for display', () => {
    expect(shellQuote(['claude', '-p', "it's here", 'Bash(git *)'])).toBe(
      `claude -p 'it'\\''s here' 'Bash(git *)'`,
    );
  });
});
