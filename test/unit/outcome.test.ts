import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classify, type SessionEnd } from '../../src/agent/outcome.js';
import { claudeDecoder } from '../../src/agent/clis/claude-stream.js';
import { StreamParser } from '../../src/stream/parser.js';
import { applyToSummary, emptySummary, type StreamSummary } from '../../src/stream/summary.js';

function summaryOf(name: string): StreamSummary {
  const summary = emptySummary();
  const parser = new StreamParser((line) => applyToSummary(summary, line, 0), claudeDecoder());
  parser.push(
    fs.readFileSync(
      fileURLToPath(new URL(`../fixtures/transcripts/${name}.ndjson`, import.meta.url)),
    ),
  );
  parser.finish();
  return summary;
}

const ok = { code: 0, signal: null };
const failed = { code: 1, signal: null };
const end = (summary: StreamSummary, extra: Partial<SessionEnd> = {}): SessionEnd => ({
  summary,
  exit: ok,
  ...extra,
});

describe('classify, on transcripts recorded from the real CLI', () => {
  it('a clean answer is a success', () => {
    expect(classify(end(summaryOf('text')))).toMatchObject({
      kind: 'success',
      status: 'completed',
    });
  });

  it('a refused tool is a permission denial even with subtype success and exit 0', () => {
    expect(classify(end(summaryOf('permission-denied')))).toMatchObject({
      kind: 'permission_denied',
      status: 'failed',
      retryable: false,
    });
  });

  it('a tool removed by --tools or --disallowedTools counts as refused too', () => {
    const summary = summaryOf('tool-disabled');
    expect(summary.permissionDenials).toEqual([expect.objectContaining({ toolName: 'Write' })]);
    expect(summary.result).toMatchObject({
      subtype: 'success',
      isError: false,
      permissionDenials: [],
    });
    expect(classify(end(summary))).toMatchObject({ kind: 'permission_denied' });
  });

  it('an API error with subtype success is an api_error, transient statuses retryable', () => {
    expect(classify(end(summaryOf('api-error-429'), { exit: failed }))).toMatchObject({
      kind: 'api_error',
      retryable: true,
    });
  });

  it('the turn limit is max_turns', () => {
    expect(classify(end(summaryOf('max-turns'), { exit: failed }))).toMatchObject({
      kind: 'max_turns',
      status: 'failed',
    });
  });

  it('a rejected usage limit waits for its reset without counting as a failure', () => {
    const outcome = classify(end(summaryOf('usage-limit-rejected'), { exit: failed }));
    expect(outcome).toMatchObject({ kind: 'rate_limited', countsAsFailure: false });
    expect(outcome.kind === 'rate_limited' && outcome.waitUntil).toBe(
      summaryOf('usage-limit-rejected').rateLimit!.resetsAt! * 1000,
    );
  });

  it('authentication failures and exhausted credit pause the night', () => {
    expect(classify(end(summaryOf('auth-401'), { exit: failed }))).toMatchObject({
      kind: 'auth_error',
      pauseReason: expect.stringContaining('authentication') as string,
    });
    expect(classify(end(summaryOf('credit-exhausted'), { exit: failed }))).toMatchObject({
      kind: 'credit_exhausted',
      pauseReason: expect.stringContaining('Credit balance') as string,
    });
  });
});

describe('classify, without trusting the exit code', () => {
  it('no result line is a crash, with the stderr tail in the message', () => {
    expect(
      classify(end(emptySummary(), { exit: failed, stderrTail: 'boom\nError: bad thing' })),
    ).toMatchObject({
      kind: 'no_result',
      message: expect.stringContaining('Error: bad thing') as string,
    });
    expect(classify(end(emptySummary(), { exit: ok }))).toMatchObject({ kind: 'no_result' });
  });

  it('an exit by signal is never a success', () => {
    expect(
      classify(end(summaryOf('text'), { exit: { code: null, signal: 'SIGSEGV' } })),
    ).toMatchObject({ kind: 'signal_exit' });
    expect(
      classify(end(emptySummary(), { exit: { code: null, signal: 'SIGKILL' } })),
    ).toMatchObject({ kind: 'signal_exit' });
  });

  it('a successful result with a non-zero exit is not a success', () => {
    expect(classify(end(summaryOf('text'), { exit: failed }))).toMatchObject({
      kind: 'exit_error',
    });
  });

  it('keeps the result of an agent stopped after it printed one', () => {
    expect(
      classify(
        end(summaryOf('text'), {
          exit: { code: null, signal: 'SIGTERM' },
          stopReason: 'after_result',
        }),
      ),
    ).toMatchObject({
      kind: 'success',
    });
  });

  it('takes a timeout over the result the CLI prints when stopped', () => {
    expect(
      classify(end(summaryOf('max-turns'), { exit: failed, stopReason: 'idle_timeout' })),
    ).toMatchObject({ kind: 'idle_timeout' });
  });

  it('names the runner’s own stops', () => {
    const stopped = { code: null, signal: 'SIGINT' as const };
    expect(classify(end(emptySummary(), { exit: stopped, stopReason: 'timeout' }))).toMatchObject({
      kind: 'timeout',
      status: 'timeout',
    });
    expect(
      classify(end(emptySummary(), { exit: stopped, stopReason: 'idle_timeout' })),
    ).toMatchObject({ kind: 'idle_timeout', status: 'timeout' });
    expect(classify(end(emptySummary(), { exit: stopped, stopReason: 'interrupt' }))).toMatchObject(
      { kind: 'interrupted', status: 'interrupted' },
    );
    expect(classify(end(emptySummary(), { exit: stopped, stopReason: 'shutdown' }))).toMatchObject({
      kind: 'stopped',
      status: 'killed',
      countsAsFailure: false,
    });
  });
});
