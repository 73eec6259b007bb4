// Apart from the schema: the CLI's flags name them without loading the validation library.

/** Where an agent and its gates run: `none`, or bubblewrap (`bwrap`). */
export const SANDBOX_KINDS = ['none', 'bwrap'] as const;

/**
 * The sandbox's network: `none` (the agent reaches its own API alone, gates nothing), `allow`
 * (through ralph's proxy, to the CLI's API and `allowHosts`), `open` (the machine's network).
 */
export const SANDBOX_NETWORKS = ['none', 'allow', 'open'] as const;
