import * as z from '../lib/zod.js';

/** `ralph import`: how work taken from an issue tracker runs and is told back. */
export const ImportSchema = z.strictObject({
  /**
   * The persona imported issues run under (its allowlist): their text is anyone's. Default: the
   * workspace's allowlist; never a mode that bypasses permissions.
   */
  persona: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
      'an agent id is ASCII letters (a-z, A-Z), digits, "_" or "-"',
    )
    .optional(),
  /** A comment on the issue when its item ends, and `Fixes #N` in its pull request. */
  writeBack: z.boolean().default(false),
  /**
   * Whose issues are work: anyone can get a label onto an issue (issue forms apply labels), so
   * who wrote it decides. Trusted authors' text is the task; others' is skipped, or imported
   * fenced as untrusted text (`others: "fence"`).
   */
  trust: z
    .strictObject({
      /** GitHub's author associations trusted. */
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
        .default(['OWNER', 'MEMBER', 'COLLABORATOR']),
      /** Logins trusted whatever their association. */
      logins: z.array(z.string().min(1)).default([]),
      /** What becomes of an issue by anyone else. */
      others: z.enum(['skip', 'fence']).default('skip'),
    })
    .prefault({}),
});

export type ImportConfig = z.output<typeof ImportSchema>;
