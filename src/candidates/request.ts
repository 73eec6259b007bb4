import type { CappedDiff } from '../git/capped-diff.js';
import { CRITERION_VERDICTS } from '../stage/answers.js';

/** One candidate as the judge sees it: a label, its change and its gates, and nothing else. */
export interface ShownCandidate {
  label: string;
  diff: CappedDiff;
  gates: readonly { name: string; passed: boolean }[];
}

/** What the judge is given: the task, its criteria and the candidates, in the order shown. */
export interface JudgeSubject {
  title: string;
  body: string;
  criteria: readonly string[];
  candidates: readonly ShownCandidate[];
}

/**
 * `text` with every name that could tell who wrote a candidate (a CLI, a model) put as
 * `[agent]`: the judge compares changes, not their authors.
 */
export function anonymized(text: string, names: readonly string[]): string {
  return names
    .filter((name) => name.length > 1)
    .reduce(
      (out, name) =>
        out.replace(new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '[agent]'),
      text,
    );
}

const numbered = (lines: readonly string[]) =>
  lines.map((line, i) => `${i + 1}. ${line}`).join('\n');

/** One candidate's section of the request. */
function section(candidate: ShownCandidate): string {
  const gates =
    candidate.gates.length === 0
      ? 'No gates ran.'
      : candidate.gates.map((g) => `- ${g.name}: ${g.passed ? 'passed' : 'failed'}`).join('\n');
  const leftOut =
    candidate.diff.leftOut.length === 0
      ? ''
      : `\n\nLeft out of this diff for length: ${candidate.diff.leftOut
          .map((f) => `${f.file} (${f.chars} characters)`)
          .join(', ')}.`;
  return `## Candidate ${candidate.label}

### Gates

${gates}

### Its diff against the base

\`\`\`diff
${candidate.diff.text}
\`\`\`${leftOut}`;
}

/**
 * The judge's task: the item, its criteria, each passing candidate's change and gates under a
 * label (no agent named, the order shuffled), and the verdict asked for as JSON.
 */
export function judgeRequest(subject: JudgeSubject): string {
  const labels = subject.candidates.map((c) => c.label);
  const criteria =
    subject.criteria.length === 0
      ? 'The item names no acceptance criteria: judge each change against its task.'
      : numbered(subject.criteria);
  return `# Judgement

Several agents each made a change for the same task, from the same base. Every one passed its
gates. You compare them: read them (you may read the repository; you change nothing), judge each
against the task and each acceptance criterion with evidence, and rank them, best first.

## Task: ${subject.title}

${subject.body.trim() === '' ? '(no text)' : subject.body.trim()}

## Acceptance criteria

${criteria}

${subject.candidates.map(section).join('\n\n')}

## Your answer

End with one JSON object, and nothing after it:

\`\`\`json
{
  "candidates": [
    { "candidate": "${labels[0] ?? 'A'}", "criteria": [{ "id": 1, "verdict": "${CRITERION_VERDICTS.join(' | ')}", "evidence": "file:line, or a command and its output" }] }
  ],
  "ranking": [${labels.map((l) => `"${l}"`).join(', ')}],
  "reason": "why the first ranked is best, in a few sentences"
}
\`\`\`

Judge every candidate (${labels.join(', ')}) once, on every criterion by its number, and rank
each of them once, best first.
`;
}
