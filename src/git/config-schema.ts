import * as z from '../lib/zod.js';

/** Git mode: each item on a branch of its own, in a worktree of its own. */
export const GitSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** The ref a new branch starts from; default: the repository's HEAD when the item is claimed. */
  base: z.string().min(1).optional(),
  /** A remote to push the branch to once the gates pass; nothing is pushed without it. */
  push: z.string().min(1).optional(),
});
