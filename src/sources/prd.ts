import { parseDocument } from 'yaml';
import * as z from '../lib/zod.js';
import { formatIssues } from '../lib/validation.js';
import { MAX_TITLE_CHARS } from '../queue/item.js';
import { slugOf } from '../lib/text.js';
import { SourceError, type SourceEntry } from './entry.js';

// The `prd.json` of the Ralph loop tools: a project's user stories, each with its acceptance
// criteria, a priority (1 first) and whether it passes. Fields ralph has no use for (the
// project's name, its `branchName`: ralph names its own branches) are let through.

const StorySchema = z.looseObject({
  id: z.string().trim().min(1),
  title: z.string().trim().min(1).max(MAX_TITLE_CHARS),
  description: z.string().optional(),
  acceptanceCriteria: z.array(z.string()).optional(),
  priority: z.int().min(-1_000_000).max(1_000_000).optional(),
  passes: z.boolean().optional(),
  notes: z.string().optional(),
});

const PrdSchema = z.looseObject({
  project: z.string().optional(),
  description: z.string().optional(),
  userStories: z.array(StorySchema),
});

/** The line and column of a JSON syntax error, from what the parser says of where it is. */
function whereInJson(text: string, error: Error): string {
  const lineColumn = /line (\d+) column (\d+)/.exec(error.message);
  if (lineColumn !== null) return `${lineColumn[1]}:${lineColumn[2]}`;
  const position = /position (\d+)/.exec(error.message);
  if (position === null) return '';
  const before = text.slice(0, Number(position[1])).split('\n');
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * Names a field of the file by its line and path (`prd.json:14 userStories.2.title`). JSON is
 * YAML, and the YAML parser keeps where each node stands.
 */
function lineOf(text: string): (path: readonly PropertyKey[]) => string {
  const doc = parseDocument(text);
  return (path) => {
    const keys = path.map((p) => (typeof p === 'number' ? p : String(p)));
    let node: unknown;
    for (let n = keys.length; n > 0 && node === undefined; n--)
      node = doc.getIn(keys.slice(0, n), true);
    const offset = (node as { range?: number[] } | undefined)?.range?.[0];
    const at = offset === undefined ? '' : `line ${text.slice(0, offset).split('\n').length} `;
    return `${at}${keys.join('.')}`;
  };
}

/** The stories of a `prd.json`, as items: the body is the description and its criteria. */
export function prdEntries(ref: string, text: string): SourceEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const where = whereInJson(text, error as Error);
    throw new SourceError(
      `${ref}${where === '' ? '' : `:${where}`}: not valid JSON (${(error as Error).message})`,
    );
  }
  const parsed = PrdSchema.safeParse(raw);
  if (!parsed.success) throw new SourceError(formatIssues(ref, parsed.error, lineOf(text)));
  const ids = new Set<string>();
  return parsed.data.userStories.map((story, index) => {
    if (ids.has(story.id))
      throw new SourceError(`${ref}: userStories.${index}.id: ${story.id} is given twice`);
    ids.add(story.id);
    const criteria = (story.acceptanceCriteria ?? []).map((c) => c.trim()).filter((c) => c !== '');
    const body = [
      story.description?.trim() ?? '',
      story.notes?.trim() ? `Notes: ${story.notes.trim()}` : '',
    ]
      .filter((part) => part !== '')
      .join('\n\n');
    return {
      state: story.passes === true ? 'done' : 'open',
      id: slugOf(story.id, 'story'),
      title: story.title,
      body,
      criteria,
      // The stories' order kept: priority 1 first, as ralph runs the higher number first.
      priority: story.priority === undefined ? undefined : -story.priority,
      vars: { STORY_ID: story.id },
      source: { kind: 'prd', key: `prd:${ref}#${story.id}`, ref, story: story.id },
    };
  });
}
