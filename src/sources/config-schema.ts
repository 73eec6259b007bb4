import * as z from '../lib/zod.js';

/** `ralph import`: how work taken from an issue tracker runs and is told back. */
export const ImportSchema = z.strictObject({
  persona: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
      'an agent id is ASCII letters (a-z, A-Z), digits, "_" or "-"',
    )
    .optional()
    .describe(
      "The persona imported issues run under (its allowlist): their text is anyone's. Default: the workspace's allowlist; never a mode that bypasses permissions.",
    ),
  writeBack: z
    .boolean()
    .default(false)
    .describe(
      'A comment on the issue when its item starts and when it ends, and `Fixes #N` in its pull request (merge request).',
    ),
  trust: z
    .strictObject({
      associations: z
        .array(
          z.enum([
            'OWNER',
            'MEMBER',
            'COLLABORATOR',
            'CONTRIBUTOR',
            'FIRST_TIME_CONTRIBUTOR',
            'FIRST_TIMER',
            'NONE',
            'MANNEQUIN',
          ]),
        )
        .default(['OWNER', 'MEMBER', 'COLLABORATOR'])
        .describe("GitHub's author associations trusted."),
      accessLevel: z
        .enum(['guest', 'planner', 'reporter', 'developer', 'maintainer', 'owner'])
        .default('developer')
        .describe(
          "GitLab: the least access level in the project (its own or its groups') of an author trusted.",
        ),
      logins: z
        .array(z.string().min(1))
        .default([])
        .describe('Logins trusted whatever their association.'),
      others: z
        .enum(['skip', 'fence'])
        .default('skip')
        .describe(
          'What becomes of an issue by anyone else: skipped, or imported fenced as untrusted text.',
        ),
    })
    .prefault({})
    .describe(
      'Whose issues are work: anyone can get a label onto an issue (issue forms apply labels), so who wrote it decides. Trusted authors\' text is the task; others\' is skipped, or imported fenced as untrusted text (`others: "fence"`).',
    ),
});

export type ImportConfig = z.output<typeof ImportSchema>;
