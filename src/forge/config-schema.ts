import * as z from '../lib/zod.js';
import { BranchName, DurationSchema, RemoteName } from '../config/values.js';

/** How a pull request is merged once its checks are green (`none`: left for a person). */
export const FORGE_MERGES = ['none', 'merge', 'squash', 'rebase'] as const;

/**
 * Pull requests with CI in the loop: an item's branch pushed and a pull request opened once its
 * gates (or its landing) pass, its checks awaited, a failure handed back to its agent.
 */
export const ForgeSchema = z.strictObject({
  kind: z.literal('github', { error: 'the forge ralph speaks to: "github"' }),
  /** GitHub's API, or a GitHub Enterprise server's (`https://ghe.example/api/v3`). */
  apiUrl: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL such as "https://api.github.com"' })
    .default('https://api.github.com'),
  /** `owner/name`; default: read from the remote's URL. */
  repo: z
    .string()
    .regex(/^[\w.-]+\/[\w.-]+$/, 'the repository as "owner/name"')
    .optional(),
  /** The remote branches are pushed to, with the person's git credentials. */
  remote: RemoteName.default('origin'),
  /** The variable holding the API token (never the token itself). */
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, not a token')
    .default('GITHUB_TOKEN'),
  /**
   * `item`: a pull request for each item's branch into its base; `landed`: one for the land
   * target (items that land), into `forge.base`. Default: `landed` with landing on, else `item`.
   */
  pr: z.enum(['item', 'landed']).optional(),
  /** The branch the land target's pull request goes into (`pr: "landed"`). */
  base: BranchName.default('main'),
  draft: z.boolean().default(false),
  labels: z.array(z.string().min(1).max(50)).default([]),
  reviewers: z.array(z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login')).default([]),
  merge: z.enum(FORGE_MERGES).default('none'),
  /** Merge (or call it ready) only once a reviewer approved it. */
  requireApproval: z.boolean().default(false),
  checks: z
    .strictObject({
      /** Longest an item waits for its checks after a push. */
      timeout: DurationSchema.default(2 * 3600),
      /** Rounds of a failed check handed back to the agent before the item fails. */
      maxFixRounds: z.int().nonnegative().max(10).default(2),
      /** The checks that count (by name); empty: every check reported. */
      required: z.array(z.string().min(1)).default([]),
      /** The first wait between two looks at a commit's checks; it grows to 10 times it. */
      poll: DurationSchema.default(30),
    })
    .prefault({}),
  /** Pull requests of this workspace open and not merged, past which no new item starts. */
  maxOpen: z.int().positive().optional(),
  /** A review that requests changes goes back to the agent like a failed check. */
  reviews: z.boolean().default(false),
  /** The least time between two writes to the forge (GitHub asks for one second; thrice that for a new pull request or comment). */
  writeInterval: DurationSchema.default(1),
});

export type ForgeConfig = z.output<typeof ForgeSchema>;
