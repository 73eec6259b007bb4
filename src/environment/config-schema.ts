import * as z from '../lib/zod.js';
import { GateSchema } from '../gates/config-schema.js';

/** A service: a command kept running beside a session, an argv array or a named one. */
const ServiceSchema = z
  .union(
    [
      z.array(z.string().min(1)).min(1),
      z.strictObject({
        name: z
          .string()
          .min(1)
          .describe('The name it is reported by (default: its command).')
          .optional(),
        command: z
          .array(z.string().min(1))
          .min(1)
          .describe('argv, run without a shell in the work dir.'),
      }),
    ],
    { error: 'a service is a command (a non-empty array of strings) or { "name"?, "command" }' },
  )
  .transform((service) => {
    const { name, command } = Array.isArray(service) ? { command: service } : service;
    return { name: name ?? command.join(' '), command };
  });

export type Service = z.output<typeof ServiceSchema>;

/** A dependency tree its lockfiles decide, built once and given to every worktree. */
const DependencyTreeSchema = z.strictObject({
  lockfiles: z
    .array(z.string().min(1))
    .min(1)
    .describe(
      'The files, relative to the work dir, whose contents decide the tree (e.g. `["package-lock.json"]`): a worktree whose lockfiles differ gets a tree of its own.',
    ),
  paths: z
    .array(z.string().min(1))
    .min(1)
    .describe(
      'What the install makes, relative to the work dir (e.g. `["node_modules"]`): copied into each worktree, never committed (ralph has the repository ignore them).',
    ),
  install: z
    .array(GateSchema)
    .min(1)
    .describe(
      'The commands that build the tree in a worktree that has none (e.g. `[["npm", "ci"]]`), run as setup is: with the network and the secrets named for setup.',
    ),
});

export type DependencyTree = z.output<typeof DependencyTreeSchema>;

/**
 * What makes a new worktree ready before its first session (`setup`) and a kept one before a
 * later one (`maintenance`): commands run by the setup stage, with network and the secrets named
 * here, before an agent that has neither. An item's or a persona's `setup` and `maintenance`
 * replace these.
 */
export const EnvironmentSchema = z.strictObject({
  setup: z
    .array(GateSchema)
    .default([])
    .describe(
      'Commands run in a new worktree before its first session (argv arrays, as gates; e.g. `["npm", "ci"]`). A failure spends no attempt: the item is parked with the command and the end of its output.',
    ),
  maintenance: z
    .array(GateSchema)
    .default([])
    .describe(
      'Commands run in a kept worktree before a later session (a retry, a change asked for, a landing\'s round), e.g. `["npm", "install"]`.',
    ),
  dependencies: z
    .array(DependencyTreeSchema)
    .default([])
    .describe(
      "Dependency trees shared between worktrees: each built once for its lockfiles' contents (by its install commands, in the first worktree that needs it), then copied into every worktree with the same lockfiles, before the setup commands run. A lockfile an item changes gets it a tree of its own before its next session.",
    ),
  worktreeInclude: z
    .boolean()
    .default(true)
    .describe(
      "Copy into a new worktree the files the repository's `.worktreeinclude` lists (gitignore syntax) that git ignores: `.env`, local configuration. Tracked files are never copied.",
    ),
  secrets: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Variables of the runner\'s environment given to setup and maintenance alone (e.g. `["NPM_TOKEN"]`), never to an agent.',
    ),
  ports: z
    .strictObject({
      base: z
        .int()
        .min(1024)
        .max(65_000)
        .default(41_000)
        .describe('The first port of the first block.'),
      size: z.int().min(1).max(100).default(10).describe('Ports in a block.'),
    })
    .prefault({})
    .describe(
      'Each running item gets a block of free ports of its own, the first in `RALPH_PORT` (`{{PORT}}`), all in `RALPH_PORTS` ("first-last"), and its block number in `RALPH_SLOT` (`{{SLOT}}`): its gates and its agent use them, so items side by side never clash.',
    ),
  services: z
    .array(ServiceSchema)
    .default([])
    .describe(
      'Commands kept running beside each session and its gates (a database, a server its tests need), in its work dir with its ports (`RALPH_PORT`, `RALPH_SLOT`), each in a process group of its own, stopped and reaped with the attempt; their output in `<session>-services.log`.',
    ),
  allowHosts: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Under the sandbox: the hosts setup and maintenance may reach through the egress proxy (e.g. `["registry.npmjs.org:443"]`), which the agent may not.',
    ),
});

export type EnvironmentConfig = z.output<typeof EnvironmentSchema>;

/** The file a repository lists the ignored files a new worktree gets a copy of in. */
export const WORKTREE_INCLUDE = '.worktreeinclude';

/** No environment to make: nothing copied, nothing run (a reviewer's read-only session). */
export const NO_ENVIRONMENT: EnvironmentConfig = EnvironmentSchema.parse({
  worktreeInclude: false,
});
