import * as z from '../lib/zod.js';
import { BranchName, DurationSchema, RemoteName } from '../config/values.js';

/** How a pull request is merged once its checks are green (`none`: left for a person). */
export const FORGE_MERGES = ['none', 'merge', 'squash', 'rebase'] as const;

/** The forges ralph speaks to. */
export const FORGE_KINDS = ['github', 'gitlab'] as const;
export type ForgeKind = (typeof FORGE_KINDS)[number];

/** Where each forge is, and the variable of its token, when the workspace does not say. */
export const FORGE_DEFAULTS: Record<ForgeKind, { apiUrl: string; tokenEnv: string }> = {
  github: { apiUrl: 'https://api.github.com', tokenEnv: 'GITHUB_TOKEN' },
  gitlab: { apiUrl: 'https://gitlab.com', tokenEnv: 'GITLAB_TOKEN' },
};

/** A project's path on its forge: `owner/name` on GitHub, `group/subgroup/name` on GitLab. */
export const ProjectPath = z
  .string()
  .regex(/^[\w.-]+(\/[\w.-]+)+$/, 'the repository as "owner/name" (GitLab: "group/subgroup/name")');

/** The name of an environment variable holding a token. */
export const TokenEnv = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, not a token');

/**
 * Pull requests (GitLab's merge requests) with CI in the loop: an item's branch pushed and a pull
 * request opened once its gates (or its landing) pass, its checks (GitLab's pipeline) awaited, a
 * failure handed back to its agent.
 */
const ForgeObject = z.strictObject({
  kind: z
    .enum(FORGE_KINDS, { error: 'the forge ralph speaks to: "github" or "gitlab"' })
    .describe('The forge ralph speaks to: `github` or `gitlab`.'),
  apiUrl: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL such as "https://api.github.com"' })
    .optional()
    .describe(
      "GitHub's API (default `https://api.github.com`), or a GitHub Enterprise server's (`https://ghe.example/api/v3`); GitLab's instance (default `https://gitlab.com`), a self-hosted one with its path (`https://git.example/gitlab`).",
    ),
  repo: ProjectPath.optional().describe(
    "`owner/name` (GitLab: the project's path, `group/subgroup/name`); default: read from the remote's URL.",
  ),
  remote: RemoteName.default('origin').describe(
    "The remote branches are pushed to, with the person's git credentials.",
  ),
  tokenEnv: TokenEnv.optional().describe(
    'The variable holding the API token (never the token itself); default `GITHUB_TOKEN`, or `GITLAB_TOKEN` for GitLab.',
  ),
  pr: z
    .enum(['item', 'landed'])
    .optional()
    .describe(
      "`item`: a pull request for each item's branch into its base; `landed`: one for the land target (items that land), into `forge.base`. Default: `landed` with landing on, else `item`.",
    ),
  base: BranchName.default('main').describe(
    'The branch the land target\'s pull request goes into (`pr: "landed"`).',
  ),
  draft: z.boolean().default(false).describe('Open pull requests as drafts.'),
  labels: z
    .array(z.string().min(1).max(50))
    .default([])
    .describe('Labels put on each pull request when it opens.'),
  reviewers: z
    .array(z.string().regex(/^[A-Za-z0-9][\w.-]{0,254}$/, 'a GitHub login or GitLab username'))
    .default([])
    .describe('Logins asked to review each pull request when it opens.'),
  merge: z
    .enum(FORGE_MERGES)
    .default('none')
    .describe(
      "How a pull request is merged once its checks are green; `none`: left for a person. GitLab merges as the project allows (its merge method: merge commit, semi-linear or fast-forward); `squash` squashes, `rebase` is the project's own method.",
    ),
  requireApproval: z
    .boolean()
    .default(false)
    .describe('Merge (or call it ready) only once a reviewer approved it.'),
  checks: z
    .strictObject({
      timeout: DurationSchema.default(2 * 3600).describe(
        'Longest an item waits for its checks after a push.',
      ),
      maxFixRounds: z
        .int()
        .nonnegative()
        .max(10)
        .default(2)
        .describe('Rounds of a failed check handed back to the agent before the item fails.'),
      required: z
        .array(z.string().min(1))
        .default([])
        .describe('The checks that count (by name); empty: every check reported.'),
      poll: DurationSchema.default(30).describe(
        "The first wait between two looks at a commit's checks; it grows to 10 times it.",
      ),
    })
    .prefault({})
    .describe("Waiting for a pull request's checks."),
  maxOpen: z
    .int()
    .positive()
    .optional()
    .describe(
      'Pull requests of this workspace open and not merged, past which no new item starts.',
    ),
  reviews: z
    .boolean()
    .default(false)
    .describe('A review that requests changes goes back to the agent like a failed check.'),
  writeInterval: DurationSchema.default(1).describe(
    "The least time between two writes to GitHub (it asks for one second; thrice that for a new pull request or comment). GitLab's writes keep GitLab.com's limits per endpoint instead.",
  ),
});

/** The forge settings, each forge's own defaults filled in. */
export const ForgeSchema = ForgeObject.transform((forge) => ({
  ...forge,
  apiUrl: (forge.apiUrl ?? FORGE_DEFAULTS[forge.kind].apiUrl).replace(/\/+$/, ''),
  tokenEnv: forge.tokenEnv ?? FORGE_DEFAULTS[forge.kind].tokenEnv,
}));

export type ForgeConfig = z.output<typeof ForgeSchema>;
