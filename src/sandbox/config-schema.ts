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
  kind: z.enum(SANDBOX_KINDS).optional(),
  network: z.enum(SANDBOX_NETWORKS).optional(),
  /** Hosts the proxy lets through besides the CLI's own API (`network: "allow"`). */
  allowHosts: z.array(AllowedHost).optional(),
  /** Paths outside the work dir the agent may read. */
  readOnly: z.array(SandboxPath).optional(),
  /** Paths outside the work dir the agent may change. */
  readWrite: z.array(SandboxPath).optional(),
});

export type SandboxChoice = z.output<typeof SandboxChoiceSchema>;

/** The workspace's sandbox: what an item or persona does not set itself. */
export const SandboxSchema = z.strictObject({
  kind: z.enum(SANDBOX_KINDS).default('none'),
  network: z.enum(SANDBOX_NETWORKS).default('allow'),
  allowHosts: z.array(AllowedHost).default([]),
  readOnly: z.array(SandboxPath).default([]),
  readWrite: z.array(SandboxPath).default([]),
});
