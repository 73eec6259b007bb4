import * as z from '../lib/zod.js';
import {
  CRITERION_VERDICTS_JSON_SCHEMA,
  CriterionVerdictsSchema,
  readAnswer,
  strictJsonObject,
  word,
} from '../stage/answers.js';

export const SEVERITIES = ['blocking', 'major', 'minor'] as const;
export const OVERALLS = ['approve', 'request_changes'] as const;

const MAX_TEXT = 2_000;
const MAX_FINDINGS = 50;

const Text = z.string().trim().min(1).max(MAX_TEXT);

/** The verdict a reviewer is asked for, as it may write it. */
export const VerdictSchema = z.object({
  criteria: CriterionVerdictsSchema,
  findings: z
    .array(
      z.object({
        severity: word(SEVERITIES, { blocker: 'blocking', critical: 'blocking', nit: 'minor' }),
        place: Text,
        finding: Text,
      }),
    )
    .max(MAX_FINDINGS)
    .default([]),
  overall: word(OVERALLS, {
    approved: 'approve',
    changes_requested: 'request_changes',
    request_change: 'request_changes',
  }),
  summary: Text.optional(),
});

export type Verdict = z.output<typeof VerdictSchema>;

/**
 * The verdict as a JSON Schema, for a CLI that holds its answer to one (claude's
 * `--json-schema`, codex's `--output-schema`): strict, as OpenAI's structured outputs want it.
 * An answer held to it is still read by `readVerdict`, which checks what the schema cannot.
 */
export const VERDICT_JSON_SCHEMA: Readonly<Record<string, unknown>> = strictJsonObject({
  criteria: CRITERION_VERDICTS_JSON_SCHEMA,
  findings: {
    type: 'array',
    items: strictJsonObject({
      severity: { type: 'string', enum: [...SEVERITIES] },
      place: { type: 'string' },
      finding: { type: 'string' },
    }),
  },
  overall: { type: 'string', enum: [...OVERALLS] },
  summary: { type: 'string' },
});

/** A reviewer's answer read: a valid verdict, or why it is none (it then never approves). */
export type ReadVerdict =
  { kind: 'verdict'; verdict: Verdict } | { kind: 'invalid'; reason: string };

/** Why a verdict cannot stand for an item with `criteria` (none: it can). */
function contradiction(verdict: Verdict, criteria: readonly string[]): string | undefined {
  const seen = new Set<number>();
  for (const { id } of verdict.criteria) {
    if (id > criteria.length)
      return `it names criterion ${id}, and the item has ${criteria.length === 0 ? 'none' : `only ${criteria.length}`}`;
    if (seen.has(id)) return `it answers criterion ${id} twice`;
    seen.add(id);
  }
  const missing = criteria.map((_, i) => i + 1).filter((id) => !seen.has(id));
  if (missing.length > 0) return `it gives no verdict for criterion ${missing.join(', ')}`;
  if (verdict.overall !== 'approve') return undefined;
  const failed = verdict.criteria.find((c) => c.verdict === 'FAIL');
  if (failed !== undefined) return `it approves while criterion ${failed.id} fails`;
  if (verdict.findings.some((f) => f.severity === 'blocking'))
    return 'it approves with a blocking finding';
  return undefined;
}

/**
 * Reads a reviewer's final message as a verdict on an item with `criteria`. Tolerant of how it
 * is written (prose around it, a fenced block, the case of a word), never of what it says: an
 * answer that is not a whole, consistent verdict is invalid, and an invalid verdict never
 * approves.
 */
export function readVerdict(text: string, criteria: readonly string[]): ReadVerdict {
  const read = readAnswer(text, VerdictSchema, (verdict) => contradiction(verdict, criteria));
  return read.kind === 'valid' ? { kind: 'verdict', verdict: read.value } : read;
}
