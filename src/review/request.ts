import { OVERALLS, SEVERITIES } from './verdict.js';
import { CRITERION_VERDICTS } from '../stage/answers.js';
import type { CappedDiff } from '../git/capped-diff.js';

/** What the reviewer is given of the item and its work. */
export interface ReviewSubject {
  title: string;
  body: string;
  criteria: readonly string[];
  /** `git diff <base>...<branch>`, whole. */
  diff: string;
  /** Each gate's command and whether it passed. */
  gates: readonly { name: string; passed: boolean }[];
  /** The author's last message, as its session ended. */
  authorMessage: string;
  /** The rules in force whose scope the change touches: criteria too, numbered after the item's. */
  rules: readonly string[];
  /** Findings a person dismissed on earlier work: not to be raised. */
  dismissed: readonly string[];
}

const numbered = (lines: readonly string[]) =>
  lines.map((line, i) => `${i + 1}. ${line}`).join('\n');

/**
 * The reviewer's task: the item, its criteria, the diff (cut to `cap` characters by `capDiff`,
 * saying what is left out), the gates and the author's last word, and the verdict asked for as
 * JSON.
 */
export function reviewRequest(
  subject: Omit<ReviewSubject, 'diff'>,
  diff: CappedDiff,
  cap: number,
): string {
  const leftOut =
    diff.leftOut.length === 0
      ? ''
      : `\n\nThe diff is cut to ${cap} characters: left out (read them in the worktree): ${diff.leftOut
          .map((f) => `${f.file} (${f.chars} characters)`)
          .join(', ')}.`;
  const gates =
    subject.gates.length === 0
      ? 'No gates ran.'
      : subject.gates.map((g) => `- ${g.name}: ${g.passed ? 'passed' : 'failed'}`).join('\n');
  const criteria =
    subject.criteria.length === 0
      ? 'The item names no acceptance criteria: judge the change against its task.'
      : numbered(subject.criteria);
  const rules =
    subject.rules.length === 0
      ? ''
      : `\n\n## Rules of this project\n\nA person accepted these rules; check each as one more criterion, by its number. A change that breaks one is sent back.\n\n${subject.rules.map((rule, i) => `${subject.criteria.length + i + 1}. ${rule}`).join('\n')}`;
  const dismissed =
    subject.dismissed.length === 0
      ? ''
      : `\n\n## Findings not to raise\n\nA person dismissed these findings on earlier work: do not raise them.\n\n${subject.dismissed.map((d) => `- ${d}`).join('\n')}`;
  return `# Review

You review another agent's change. You may read the worktree; you change nothing. Judge the
change against its task and each acceptance criterion, with evidence: a file and line, or a
command's output.

## Task: ${subject.title}

${subject.body.trim() === '' ? '(no text)' : subject.body.trim()}

## Acceptance criteria

${criteria}${rules}${dismissed}

## Gates

${gates}

## The author's last message

${subject.authorMessage.trim() === '' ? '(none)' : subject.authorMessage.trim()}

## The diff against its base

\`\`\`diff
${diff.text}
\`\`\`${leftOut}

## Your answer

End with one JSON object, and nothing after it:

\`\`\`json
{
  "criteria": [{ "id": 1, "verdict": "${CRITERION_VERDICTS.join(' | ')}", "evidence": "file:line, or a command and its output" }],
  "findings": [{ "severity": "${SEVERITIES.join(' | ')}", "place": "file:line", "finding": "what is wrong" }],
  "overall": "${OVERALLS.join(' | ')}",
  "summary": "one or two sentences"
}
\`\`\`

Give every criterion${subject.rules.length === 0 ? '' : ' and rule'} by its number, once. Approve only when no criterion fails and no finding
is blocking.
`;
}
