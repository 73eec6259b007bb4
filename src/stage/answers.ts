import * as z from '../lib/zod.js';

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

/**
 * The JSON objects a session's final message may hold, the likeliest first: fenced `json`
 * blocks from the last, then every balanced `{…}` from the last.
 */
export function jsonObjectsIn(text: string): string[] {
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
