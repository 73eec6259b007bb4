import { readIfExists } from './fs.js';
import type * as z from './zod.js';

/**
 * The lines of an append-only JSON-lines file that `schema` reads, oldest first (none: no file).
 * A line it cannot read is left out: one a crash cut short was never whole.
 */
export async function readJsonLines<S extends z.ZodType>(
  file: string,
  schema: S,
): Promise<z.output<S>[]> {
  const text = (await readIfExists(file)) ?? '';
  const lines: z.output<S>[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      if (parsed.success) lines.push(parsed.data);
    } catch {
      // Cut short by a crash: what it began never took effect.
    }
  }
  return lines;
}
