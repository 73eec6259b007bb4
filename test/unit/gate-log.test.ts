// A gates log's end lines, as the gates write them and the candidates stage reads them back.
import { describe, expect, it } from 'vitest';
import { gateEndLine, gatesInLog } from '../../src/lib/gate-log.js';

describe('a gates log', () => {
  it('reads back each gate as it was written, names with quotes and colons included', () => {
    const log = [
      '$ ["npm","test"]  (gate "npm test", timeout 600 s)',
      '[gate "x": passed, exit 0, 0.0 s] printed by the gate itself',
      gateEndLine('gate', { name: 'npm test', passed: true, verdict: 'exit 0', durationMs: 1234 }),
      '',
      gateEndLine('gate', {
        name: 'lint "strict": all',
        passed: false,
        verdict: 'exit 2',
        durationMs: 50,
      }),
      gateEndLine('land gate', { name: 'other', passed: true, verdict: 'exit 0', durationMs: 1 }),
    ].join('\n');
    expect(
      gateEndLine('gate', { name: 'g', passed: false, verdict: 'exit 1', durationMs: 400 }),
    ).toBe('[gate "g": failed, exit 1, 0.4 s]');
    expect(gatesInLog(log)).toEqual([
      { name: 'npm test', passed: true },
      { name: 'lint "strict": all', passed: false },
    ]);
  });
});
