import * as z from '../lib/zod.js';
import {
  CRITERION_VERDICTS_JSON_SCHEMA,
  CriterionVerdictsSchema,
  readAnswer,
  strictJsonObject,
} from '../stage/answers.js';
import type { AnswerRead, SessionKind } from '../stage/sessions.js';

const MAX_TEXT = 2_000;
const Text = z.string().trim().min(1).max(MAX_TEXT);

/** A label the judge knows a candidate by: `A` for the first it is shown. */
const Label = z
  .string()
  .trim()
  .transform((label) => label.replace(/^candidate\s+/i, '').toUpperCase());

/** The judge's verdict, as it may write it. */
const JudgeVerdictSchema = z.object({
  candidates: z.array(
    z.object({
      candidate: Label,
      criteria: CriterionVerdictsSchema,
    }),
  ),
  ranking: z.array(Label).min(1),
  reason: Text,
});

export type JudgeVerdict = z.output<typeof JudgeVerdictSchema>;

/** The verdict as a JSON Schema, for a CLI that holds its answer to one. */
const JUDGE_JSON_SCHEMA: Readonly<Record<string, unknown>> = strictJsonObject({
  candidates: {
    type: 'array',
    items: strictJsonObject({
      candidate: { type: 'string' },
      criteria: CRITERION_VERDICTS_JSON_SCHEMA,
    }),
  },
  ranking: { type: 'array', items: { type: 'string' } },
  reason: { type: 'string' },
});

/** The labels the judge is shown (`A`, `B`, …), for `count` candidates. */
export const labelsFor = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => String.fromCharCode(65 + i));

/**
 * Why a verdict cannot stand for `labels` and `criteria` (none: it can): every candidate shown
 * judged once, on every criterion, none it was not shown, and all of them ranked, once each.
 */
function contradiction(
  verdict: JudgeVerdict,
  labels: readonly string[],
  criteria: number,
): string | undefined {
  const judged = verdict.candidates.map((c) => c.candidate);
  const unknown = [...judged, ...verdict.ranking].find((label) => !labels.includes(label));
  if (unknown !== undefined) return `it names candidate ${unknown}, which it was not shown`;
  for (const label of labels) {
    const of = verdict.candidates.filter((c) => c.candidate === label);
    if (of.length !== 1)
      return of.length === 0 ? `it omits candidate ${label}` : `it judges ${label} twice`;
    const ids = of[0]!.criteria.map((c) => c.id);
    const wrong = ids.find((id) => id > criteria);
    if (wrong !== undefined) return `it names criterion ${wrong} for ${label}, of ${criteria}`;
    const missing = Array.from({ length: criteria }, (_, i) => i + 1).filter(
      (id) => ids.filter((i) => i === id).length !== 1,
    );
    if (missing.length > 0)
      return `it gives candidate ${label} no single verdict for criterion ${missing.join(', ')}`;
  }
  const ranked = new Set(verdict.ranking);
  if (ranked.size !== verdict.ranking.length || ranked.size !== labels.length)
    return `its ranking (${verdict.ranking.join(', ')}) does not rank each of ${labels.join(', ')} once`;
  return undefined;
}

/**
 * Reads the judge's final message as a verdict on candidates `labels` of an item with
 * `criteria` criteria. Tolerant of how it is written, never of what it says: an answer that is
 * not a whole, consistent verdict picks nothing.
 */
export function readJudgeVerdict(
  text: string,
  labels: readonly string[],
  criteria: number,
): AnswerRead<JudgeVerdict> {
  return readAnswer(text, JudgeVerdictSchema, (verdict) =>
    contradiction(verdict, labels, criteria),
  );
}

/**
 * The judge, a kind of session the candidates stage asks for: it reads the passing candidates'
 * changes, anonymized, and answers per candidate and criterion (the item's, then the rules in
 * force it is to check: `criteria` in all), with a ranking and its reason.
 */
export function judgeOf(labels: readonly string[], criteria: number): SessionKind<JudgeVerdict> {
  return {
    role: 'judge',
    task: 'Judge',
    identity:
      'You are a judge run by ralph, an unattended runner of a queue of coding tasks: you compare changes that several agents made for one task.',
    start: 'Compare the candidates under "# Assignment", and end with the verdict it asks for.',
    outputSchema: JUDGE_JSON_SCHEMA,
    read: (text) => readJudgeVerdict(text, labels, criteria),
  };
}
