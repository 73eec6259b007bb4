// Apart from the schema, so that a CLI module reads it without loading the validator.

/**
 * What an unattended coder needs, nothing that reaches the network. File changes are scoped to
 * the work dir: `Edit(./**)` covers every editing tool (Write included; the CLI ignores a path
 * on `Write(…)`), so a plain `Write` would let the agent write anywhere the user can.
 */
export const DEFAULT_ALLOWED_TOOLS = ['Bash', 'Read', 'Edit(./**)', 'Glob', 'Grep'];

/** Whether `rules` are the built-in allowlist, as it is. */
export const isDefaultAllowlist = (rules: readonly string[]): boolean =>
  rules.length === DEFAULT_ALLOWED_TOOLS.length &&
  rules.every((rule, i) => rule === DEFAULT_ALLOWED_TOOLS[i]);
