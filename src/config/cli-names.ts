/** The agent CLIs ralph can drive (kept apart from the schema so the CLI starts fast). */
export const CLI_NAMES = ['claude', 'codex', 'gemini', 'opencode', 'pi'] as const;

export type CliName = (typeof CLI_NAMES)[number];

/** Whether `name` is one of ralph's CLIs (a name read from a state file). */
export const isCliName = (name: string): name is CliName =>
  (CLI_NAMES as readonly string[]).includes(name);
