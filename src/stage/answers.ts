import * as z from '../lib/zod.js';
import type { AnswerRead } from './sessions.js';

// What every session a stage asks for answers in: JSON in its last message, its words in the
// model's own case or spelling. Read tolerantly of how it is written, never of what it says.

/** What a session found of one criterion. */
export const CRITERION_VERDICTS = ['PASS', 'FAIL', 'UNKNOWN'] as const;

/** A word a model may write in its own case or spelling, read as one of `words`. */
export const word = <const T extends readonly string[]>(
  words: T,
  aliases: Record<string, T[number]> = {},
) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    const plain = value
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
    return aliases[plain] ?? words.find((w) => w.toLowerCase() === plain) ?? value;
  }, z.enum(words));

/** What a session found of each criterion, by its number (1 for the first), with evidence. */
export const CriterionVerdictsSchema = z
  .array(
    z.object({
      id: z.coerce.number().int().positive(),
      verdict: word(CRITERION_VERDICTS),
      evidence: z.string().trim().min(1).max(2_000),
    }),
  )
  .default([]);

/**
 * An object of a JSON Schema for a CLI that holds its answer to one: every property required and
 * no other allowed, as OpenAI's structured outputs want it.
 */
export const strictJsonObject = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

/** `CriterionVerdictsSchema` as a JSON Schema. */
export const CRITERION_VERDICTS_JSON_SCHEMA = {
  type: 'array',
  items: strictJsonObject({
    id: { type: 'integer', minimum: 1 },
    verdict: { type: 'string', enum: [...CRITERION_VERDICTS] },
    evidence: { type: 'string' },
  }),
};

/**
 * The JSON objects a session's final message may hold, the likeliest first: fenced `json`
 * blocks from the last, then every balanced `{…}` from the last.
 */
function jsonObjectsIn(text: string): string[] {
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0 && --depth === 0) spans.push(text.slice(start, i + 1));
  }
  return [...fenced.reverse(), ...spans.reverse()];
}

/**
 * The answer in a session's last message: the first JSON object of it (the likeliest first) that
 * `schema` reads and in which `contradiction` finds nothing wrong; else why none is a whole,
 * consistent answer (the first problem found).
 */
export function readAnswer<S extends z.ZodType>(
  text: string,
  schema: S,
  contradiction: (answer: z.output<S>) => string | undefined,
): AnswerRead<z.output<S>> {
  let firstProblem: string | undefined;
  for (const candidate of jsonObjectsIn(text)) {
    let json: unknown;
    try {
      json = JSON.parse(candidate);
    } catch {
      continue;
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      firstProblem ??= `not a verdict: ${z.prettifyError(parsed.error).split('\n')[0] ?? ''}`;
      continue;
    }
    const wrong = contradiction(parsed.data);
    if (wrong === undefined) return { kind: 'valid', value: parsed.data };
    firstProblem ??= `an inconsistent verdict: ${wrong}`;
  }
  return { kind: 'invalid', reason: firstProblem ?? 'no verdict: the answer holds no JSON object' };
}
