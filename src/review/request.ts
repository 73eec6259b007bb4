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
  return `# Review

You review another agent's change. You may read the worktree; you change nothing. Judge the
change against its task and each acceptance criterion, with evidence: a file and line, or a
command's output.

## Task: ${subject.title}

${subject.body.trim() === '' ? '(no text)' : subject.body.trim()}

## Acceptance criteria

${criteria}

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

Give every criterion by its number, once. Approve only when no criterion fails and no finding
is blocking.
`;
}
