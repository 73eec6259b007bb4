import * as z from '../lib/zod.js';
import { CLI_NAMES } from '../config/cli-names.js';
import { LimitSchema } from '../config/values.js';

/**
 * The diff a reviewer is given, at most (characters); files past it are named, not shown. What
 * the whole prompt may hold bounds it too.
 */
const DEFAULT_REVIEW_DIFF_CHARS = 40_000;

/** Paths whose change a person looks at twice: schema migrations, CI, lockfiles, auth, secrets. */
export const DEFAULT_SENSITIVE = [
  '**/migrations/**',
  '**/*.sql',
  '.github/**',
  '.gitlab-ci.yml',
  '.circleci/**',
  '**/Jenkinsfile',
  '**/Dockerfile',
  '**/package-lock.json',
  '**/pnpm-lock.yaml',
  '**/yarn.lock',
  '**/uv.lock',
  '**/poetry.lock',
  '**/Cargo.lock',
  '**/go.sum',
  '**/*auth*',
  '**/*auth*/**',
  '**/*secret*',
  '**/*.pem',
  '**/.env*',
];

/**
 * Review: a reviewer (another CLI by default) approves an item's work after its gates pass and
 * before it lands or its pull request is opened; one that fails never approves.
 */
export const ReviewSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(false)
    .describe(
      "Review every item of git mode (an item's or persona's `review` overrides it; `ralph add --review`, `--no-review`).",
    ),
  cli: z
    .enum(CLI_NAMES)
    .optional()
    .describe(
      "The reviewer's CLI. Default: the first of the author's fallback CLIs other than its own, else the author's CLI in a fresh session.",
    ),
  model: z
    .string()
    .min(1)
    .optional()
    .describe("The reviewer's model, with `cli` (default: its CLI's own)."),
  maxRounds: z
    .int()
    .positive()
    .max(10)
    .default(2)
    .describe(
      'Reviews that ask for changes, each sending the item back to its author, before it waits for a person with the last verdict.',
    ),
  sensitive: z
    .array(z.string().min(1))
    .default(DEFAULT_SENSITIVE)
    .describe(
      "Globs of repository paths (picomatch, dot files matched) whose change raises an item's risk in the review inbox (`ralph review`). Default: migrations, SQL, CI files, Dockerfiles, lockfiles, auth, secrets, .env files.",
    ),
  timeout: LimitSchema.default(1800).describe("Wall-clock limit of one reviewer's session."),
  maxDiffChars: z
    .int()
    .min(1000)
    .max(60_000)
    .default(DEFAULT_REVIEW_DIFF_CHARS)
    .describe(
      "The branch's diff a reviewer is given, at most; files past it are named and left out.",
    ),
});

export type ReviewSettings = z.output<typeof ReviewSchema>;
