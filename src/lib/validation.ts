import type * as z from 'zod';

/** Formats a path of a zod issue as `items[3].maxTurns`. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * Turns a zod error into one message naming the source and every bad field: one line for one
 * field, a line per field for several.
 * `describe` may name a path more helpfully (for example with the item's id).
 */
export function formatIssues(
  source: string,
  error: z.ZodError,
  describe: (path: readonly PropertyKey[]) => string = issuePath,
): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? describe(issue.path) : '(top level)';
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : issue.message;
    return `${where}: ${message}`;
  });
  // One bad field is one line; several are a list.
  if (lines.length === 1) return `${source} is invalid: ${lines[0]}`;
  return `${source} is invalid:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}
