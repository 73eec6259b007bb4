import * as z from '../lib/zod.js';
import { SANDBOX_KINDS, SANDBOX_NETWORKS } from '../config/sandbox-kinds.js';

/** A host the sandbox's proxy lets through: `registry.npmjs.org`, `*.github.com`, `127.0.0.1:8080`. */
const AllowedHost = z
  .string()
  .regex(
    /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]{0,252})(:[0-9]{1,5})?$/,
    'a host name or address, optionally "*." before it and ":port" after (no scheme, no path)',
  );

/** An absolute path given into the sandbox (`~/` is the user's home). */
const SandboxPath = z
  .string()
  .regex(/^(\/|~\/)/, 'an absolute path, or one under the home directory written "~/…"');

/** The sandbox as an item or a persona may set it: each key overrides the workspace's. */
export const SandboxChoiceSchema = z.strictObject({
  kind: z
    .enum(SANDBOX_KINDS)
    .describe('`bwrap`: every agent and its gates in a bubblewrap sandbox; `none`: no sandbox.')
    .optional(),
  network: z
    .enum(SANDBOX_NETWORKS)
    .describe(
      "`allow`: no network but ralph's proxy, to the CLI's API and `allowHosts`; `none`: the CLI's API alone (gates: nothing); `open`: the machine's network.",
    )
    .optional(),
  allowHosts: z
    .array(AllowedHost)
    .describe(
      'Hosts the proxy lets through besides the CLI\'s own API (`network: "allow"`): `registry.npmjs.org`, `*.github.com`, `127.0.0.1:8080`.',
    )
    .optional(),
  readOnly: z
    .array(SandboxPath)
    .describe('Paths outside the work dir the agent may read (absolute, or `~/…`).')
    .optional(),
  readWrite: z
    .array(SandboxPath)
    .describe('Paths outside the work dir the agent may change (absolute, or `~/…`).')
    .optional(),
});

export type SandboxChoice = z.output<typeof SandboxChoiceSchema>;

const choice = SandboxChoiceSchema.shape;

/** The workspace's sandbox: what an item or persona does not set itself. */
export const SandboxSchema = z.strictObject({
  kind: choice.kind
    .unwrap()
    .default('none')
    .describe(
      '`bwrap`: every agent and its gates in a bubblewrap sandbox; `none`: no sandbox (`ralph init` writes `bwrap` where bubblewrap works).',
    ),
  network: choice.network.unwrap().default('allow'),
  allowHosts: choice.allowHosts.unwrap().default([]),
  readOnly: choice.readOnly.unwrap().default([]),
  readWrite: choice.readWrite.unwrap().default([]),
});
