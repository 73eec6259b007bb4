// What `ralph run` prints on a terminal of a review and a landing: the reviewer's session told
// as a review, never as an author's attempt, no "→ undefined", and the verdict and the landing
// each said in a line.
import { describe, expect, it } from 'vitest';
import { runConsole } from '../../src/cli/run-output.js';
import type { RunnerEvent } from '../../src/runner/index.js';
import { captureOutput } from '../support/output.js';

const at = '2026-12-06T01:02:03.000Z';

describe('the terminal of a night with review and landing', () => {
  it('says the review, its verdict and the landing', () => {
    const output = captureOutput(true);
    const display = runConsole(output, () => 100);
    const events: RunnerEvent[] = [
      {
        time: at,
        level: 'info',
        event: 'session_started',
        item: 'greet',
        session: 'r-1',
        role: 'reviewer',
        cli: 'codex',
        attempt: 1,
        command: ['codex'],
      },
      {
        time: at,
        level: 'info',
        event: 'session_ended',
        item: 'greet',
        session: 'r-1',
        role: 'reviewer',
        outcome: 'success',
        status: 'completed',
        message: 'ok',
        costUsd: 0.01,
        killedProcesses: 0,
        streamBytes: 10,
      },
      {
        time: at,
        level: 'info',
        event: 'reviewed',
        item: 'greet',
        cli: 'codex',
        session: 'r-1',
        overall: 'approve',
        costUsd: 0.01,
        itemStatus: 'landing',
      },
      {
        time: at,
        level: 'info',
        event: 'landed',
        item: 'greet',
        target: 'ralph/landed',
        commit: '0123456789abcdef0123',
        already: false,
      },
    ];
    for (const event of events) display.show(event);
    display.close();
    const text = output.stdout.join('\n');
    expect(text).not.toContain('undefined');
    expect(text).not.toContain('attempt');
    expect(text).toContain('session started: greet reviewed by codex, session r-1');
    expect(text).toContain("session ended: greet: its reviewer's session success ($0.0100)");
    expect(text).toContain('reviewed: greet: approved by codex → landing');
    expect(text).toContain('landed: greet on ralph/landed at 0123456789ab');
  });
});
