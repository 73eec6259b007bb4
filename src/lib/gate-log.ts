// The line a gates log (`<session>-gates.log`) ends each gate with, written and read here alone:
// what a gate did is read from the log, written before its item is settled, where the session's
// record may come later.

/** A gate as its line in the log says it ended: its name, and whether it passed. */
export interface GateEnd {
  name: string;
  passed: boolean;
}

/** The line that ends a gate's part of the log: `[gate "test": failed, exit 1, 0.4 s]`. */
export function gateEndLine(
  kind: string,
  end: GateEnd & { verdict: string; durationMs: number },
): string {
  return `[${kind} "${end.name}": ${end.passed ? 'passed' : 'failed'}, ${end.verdict}, ${(end.durationMs / 1000).toFixed(1)} s]`;
}

const LINE = /^\[gate "(.*)": (passed|failed), .* s\]$/;

/** The quality gates a log says ended, in order. */
export function gatesInLog(text: string): GateEnd[] {
  return text.split('\n').flatMap((line) => {
    const match = LINE.exec(line);
    return match === null ? [] : [{ name: match[1] ?? '', passed: match[2] === 'passed' }];
  });
}
