import * as z from 'zod';
import { plural } from './text.js';

const WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
};

/** A value as a message shows it: short, and with its type when that is the fault. */
function shown(input: unknown): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'an object';
  const text = JSON.stringify(input);
  return typeof input === 'string'
    ? `the text ${text.length > 60 ? `${text.slice(0, 57)}…"` : text}`
    : text;
}

/** Messages in the words of the docs, not of the schema library; undefined keeps zod's. */
function message(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      return `expected ${WORDS[issue.expected] ?? issue.expected}, got ${shown(issue.input)}`;
    case 'too_small': {
      const { minimum: min, inclusive } = issue;
      if (issue.origin === 'string')
        return min === 1 ? 'must not be empty' : `must be at least ${plural(min, 'character')}`;
      if (issue.origin === 'array')
        return min === 1
          ? 'must not be empty'
          : `must hold at least ${plural(min, 'entry', 'entries')}`;
      return inclusive ? `must be ${min} or more` : `must be more than ${min}`;
    }
    case 'too_big': {
      const { maximum: max, inclusive } = issue;
      if (issue.origin === 'string') return `must be at most ${plural(max, 'character')}`;
      if (issue.origin === 'array') return `must hold at most ${plural(max, 'entry', 'entries')}`;
      return inclusive ? `must be ${max} or less` : `must be less than ${max}`;
    }
    case 'invalid_value':
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${shown(issue.input)}`;
    case 'invalid_format':
      return issue.format === 'datetime'
        ? `expected an ISO 8601 time such as "2026-11-23T22:00:00Z", got ${shown(issue.input)}`
        : undefined;
    default:
      return undefined;
  }
}

z.config({ customError: message });

/**
 * The schema library, with ralph's messages: every schema module imports it from here, as a
 * namespace (`import * as z`). A bundle then holds only the parts ralph uses: zod's `z` object
 * would bring all of it, its sixty locales among them.
 */
export * from 'zod';
