import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../support/transcripts.js';
import { codex, codexDecoder } from '../../src/agent/clis/codex.js';
import type { Invocation } from '../../src/agent/clis/cli.js';
import { DEFAULTS as defaults, invocationFor } from '../support/invocation.js';
import { tempDir } from '../support/workspace.js';
import { costOf } from '../../src/agent/cost.js';
import { classify } from '../../src/agent/outcome.js';
import { explicitSettings, resolveSettings } from '../../src/agent/settings.js';

const read = (name: string) => readTranscript('codex', name);

const exit = (code: number) => ({ code, signal: null });

const invocation = (overrides: Partial<Invocation> = {}) => invocationFor('codex', overrides);

describe('the codex stream', () => {
  it('reads a text answer: its thread, its tokens, a successful result', () => {
    const { summary } = read('text');
    expect(summary.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(summary.lastText).toBe('Hello from codex.');
    expect(summary.tokens).toEqual({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 200 });
    expect(summary.issues).toEqual({});
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
    // No cost of codex's own: the tokens at the price, marked as an estimate.
    expect(costOf(summary, { input: 1, output: 10, cachedInput: 0.5 })).toEqual({
      usd: (800 * 1 + 200 * 0.5 + 100 * 10) / 1e6,
      estimated: true,
    });
    expect(costOf(summary, undefined)).toBeUndefined();
  });

  it('reads a shell command as a tool call and its output as the tool result', () => {
    const { lines, summary } = read('shell');
    expect(summary.toolCalls).toBe(1);
    expect(summary.lastTool).toBe('shell');
    const call = lines.find((l) => l.kind === 'assistant' && l.toolUses.length > 0);
    expect(call).toMatchObject({
      toolUses: [{ name: 'shell', input: { command: "/bin/bash -lc 'echo made > made.txt'" } }],
    });
    expect(lines.find((l) => l.kind === 'tool_results')).toMatchObject({
      results: [{ isError: false }],
    });
    expect(classify({ summary, exit: exit(0) }).kind).toBe('success');
  });

  it('marks a command that failed as an erroneous tool result', () => {
    const { lines } = read('shell-failed');
    expect(lines.find((l) => l.kind === 'tool_results')).toMatchObject({
      results: [
        { isError: true, text: expect.stringContaining('No such file or directory') as string },
      ],
    });
  });

  it.each([
    ['error-500', 'api_error', 500],
    ['auth-401', 'auth_error', 401],
    ['rate-limit-429', 'rate_limited', 429],
  ])('classifies %s as %s, whatever the exit code says', (name, kind, status) => {
    const { summary } = read(name);
    expect(summary.result).toMatchObject({ isError: true, apiErrorStatus: status });
    expect(classify({ summary, exit: exit(1) }).kind).toBe(kind);
  });

  it('has no result for a stream cut short', () => {
    const { summary } = read('stalled');
    expect(summary.result).toBeUndefined();
    expect(
      classify({ summary, exit: { code: null, signal: 'SIGINT' }, stopReason: 'idle_timeout' })
        .kind,
    ).toBe('idle_timeout');
  });

  it('ends on a fatal error line with no turn after it', () => {
    const decoder = codexDecoder();
    decoder.decode({ type: 'thread.started', thread_id: 't' }, 1);
    decoder.decode({ type: 'error', message: 'unexpected status 503 Service Unavailable' }, 1);
    expect(decoder.end?.()).toEqual([
      expect.objectContaining({
        kind: 'result',
        result: expect.objectContaining({ apiErrorStatus: 503 }) as object,
      }),
    ]);
  });
});

describe("codex's own log", () => {
  it('has the commands its sandbox or approval policy refused, which its stream leaves out', async () => {
    const home = await tempDir('codex-home-');
    const day = path.join(home, '.codex', 'sessions', '2026', '11', '23');
    fs.mkdirSync(day, { recursive: true });
    const output = (callId: string, text: string) =>
      JSON.stringify({
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: callId, output: text },
      });
    fs.writeFileSync(
      path.join(day, 'rollout-2026-11-23T01-00-00-thread-1.jsonl'),
      [
        output('ok', 'Process exited with code 0\nOutput:\nfine\n'),
        output(
          'ro',
          "Process exited with code 1\nOutput:\ntouch: cannot touch '/usr/x': Read-only file system\n",
        ),
        output(
          'never',
          'approval policy is Never; reject command — you cannot ask for escalated permissions',
        ),
        'not json',
      ].join('\n'),
    );
    const events = await codex.afterRun?.({ conversationId: 'thread-1', env: { HOME: home } });
    expect(events?.map((e) => (e.kind === 'permission_denied' ? e.toolUseId : e.kind))).toEqual([
      'ro',
      'never',
    ]);
    expect(await codex.afterRun?.({ conversationId: 'thread-2', env: { HOME: home } })).toEqual([]);
  });
});

describe('the codex command', () => {
  it('reads the prompt on stdin, never asks, writes only in its sandbox', () => {
    expect(codex.command(invocation()).argv).toEqual({
      file: 'codex',
      args: [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '-c',
        'approval_policy="never"',
        '-c',
        'sandbox_mode="workspace-write"',
        '-',
      ],
      stdinFile: '/ws/docs/sessions/s-prompt.md',
    });
  });

  it('resumes a thread, keeps its model, and maps plan and bypass', () => {
    const settings = resolveSettings(
      defaults,
      [{ cli: 'codex', model: 'gpt-5-codex', permissionMode: 'plan' }],
      (p) => p,
    );
    const { args } = codex.command(invocation({ settings, resume: 'thread-1' })).argv;
    expect(args.slice(0, 2)).toEqual(['exec', 'resume']);
    expect(args).toEqual(expect.arrayContaining(['sandbox_mode="read-only"', '-m', 'gpt-5-codex']));
    expect(args.slice(-2)).toEqual(['thread-1', '-']);
    const yolo = codex.command(invocation({ yolo: true })).argv.args;
    expect(yolo).toContain('--dangerously-bypass-approvals-and-sandbox');
    expect(yolo.join(' ')).not.toContain('sandbox_mode');
  });

  it("runs with its own sandbox off inside ralph's, without yolo, and refuses only plan there", () => {
    const home = { CODEX_HOME: '/tmp/codex-home', TMPDIR: '/tmp' };
    const inside = codex.command(invocation({ sandboxed: true, env: home }));
    expect(inside.argv.args).toContain('sandbox_mode="danger-full-access"');
    expect(inside.argv.args).not.toContain('--dangerously-bypass-approvals-and-sandbox');
    // No temp dir of its own: that is for codex's own sandbox, which is off.
    expect(inside.env).toBeUndefined();
    const settingsOf = (permissionMode: 'plan' | 'acceptEdits') =>
      resolveSettings(defaults, [{ cli: 'codex', permissionMode }], (p) => p);
    expect(codex.sandbox.refusal?.(settingsOf('acceptEdits'))).toBeUndefined();
    expect(codex.sandbox.refusal?.(settingsOf('plan'))).toContain('sandbox.kind "none"');
    const plan = codex.command(invocation({ sandboxed: true, settings: settingsOf('plan') }));
    expect(plan.argv.args).toContain('sandbox_mode="read-only"');
  });

  it('turns off the features of an interactive session in a lean one, never when bypassing', () => {
    const argsOf = (layer: Record<string, unknown>, yolo = false) => {
      const settings = resolveSettings(defaults, [{ cli: 'codex', ...layer }], (p) => p);
      return codex.command(invocation({ settings, yolo })).argv.args.join(' ');
    };
    const lean = '-c features.goals=false -c features.sleep_tool=false';
    expect(argsOf({ lean: true })).toContain(lean);
    expect(argsOf({ lean: true, permissionMode: 'acceptEdits' })).toContain(lean);
    expect(argsOf({})).not.toContain('features.');
    expect(argsOf({ lean: true, permissionMode: 'default' })).not.toContain('features.');
    expect(argsOf({ lean: true }, true)).not.toContain('features.');
  });

  it('refuses tool rules and a budget it cannot hold, not the workspace defaults', () => {
    const layers = [{ cli: 'codex' as const, allowedTools: ['Read'], maxBudgetUsd: 1 }];
    const settings = resolveSettings(defaults, layers, (p) => p);
    expect(codex.refusals(settings, explicitSettings(layers))).toEqual([
      expect.stringContaining('codex has no per-tool rules, so allowedTools'),
      expect.stringContaining('maxBudgetUsd cannot be honoured'),
    ]);
    const plain = resolveSettings(defaults, [{ cli: 'codex' }], (p) => p);
    expect(codex.refusals(plain, { cli: 'codex' })).toEqual([]);
  });
});
