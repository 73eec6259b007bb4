// The reviewer is given the task, the criteria, the diff (cut to fit at file boundaries, saying
// what is left out), the gates and the author's last word, and told the verdict to answer.
import { describe, expect, it } from 'vitest';
import { reviewRequest } from '../../src/review/request.js';
import { capDiff } from '../../src/git/capped-diff.js';
import { readVerdict } from '../../src/review/verdict.js';

const section = (file: string, lines: number) =>
  `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n${'+x\n'.repeat(lines)}`;

describe('the review request', () => {
  it('keeps a diff that fits whole', () => {
    const diff = section('a.js', 3);
    expect(capDiff(diff, 10_000)).toEqual({ text: diff, leftOut: [] });
  });

  it('cuts a diff at file boundaries, keeping the smaller files and naming the others', () => {
    const small = section('small.js', 2);
    const big = section('big.js', 500);
    const middle = section('middle.js', 20);
    const capped = capDiff(big + small + middle, small.length + middle.length + 10);
    expect(capped.text).toBe(small + middle);
    expect(capped.leftOut).toEqual([{ file: 'big.js', chars: big.length }]);
    const text = reviewRequest(
      {
        title: 'Fix the login test',
        body: 'It is flaky.',
        criteria: ['passes 20 runs'],
        gates: [{ name: 'npm test', passed: true }],
        authorMessage: 'Fixed.',
        rules: [],
        dismissed: [],
      },
      capped,
      small.length + middle.length + 10,
    );
    expect(text).toContain('left out (read them in the worktree): big.js');
    expect(text).toContain('1. passes 20 runs');
    expect(text).toContain('- npm test: passed');
    expect(text).not.toContain('+x\n'.repeat(100));
  });

  it('shows an answer format that is itself no valid verdict, so echoing it never approves', () => {
    const text = reviewRequest(
      {
        title: 't',
        body: '',
        criteria: ['c'],
        gates: [],
        authorMessage: '',
        rules: [],
        dismissed: [],
      },
      capDiff('', 1000),
      1000,
    );
    expect(readVerdict(text, ['c']).kind).toBe('invalid');
  });

  it('gives the rules in scope as criteria numbered after the items, and the dismissed findings not to raise', () => {
    const text = reviewRequest(
      {
        title: 't',
        body: '',
        criteria: ['c'],
        gates: [],
        authorMessage: '',
        rules: ['Rule R1 (dist/**): Never edit generated files under dist/.'],
        dismissed: ['Add a comment above each function.'],
      },
      capDiff('', 1000),
      1000,
    );
    expect(text).toContain('1. c\n\n## Rules of this project');
    expect(text).toContain('2. Rule R1 (dist/**): Never edit generated files under dist/.');
    expect(text).toContain('## Findings not to raise');
    expect(text).toContain('- Add a comment above each function.');
    expect(text).toContain('Give every criterion and rule by its number, once.');
  });
});
