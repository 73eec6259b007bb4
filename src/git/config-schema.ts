import * as z from '../lib/zod.js';

/** Git mode: each item on a branch of its own, in a worktree of its own. */
export const GitSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(false)
    .describe(
      "Git mode for every item whose work dir is in a git repository (an item's or persona's `git` overrides it).",
    ),
  base: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The ref a new branch starts from; default: the repository's HEAD when the item is claimed.",
    ),
  push: z
    .string()
    .min(1)
    .optional()
    .describe('A remote to push the branch to once the gates pass; nothing is pushed without it.'),
});
