/** The executable and its arguments, as an argv array (never a shell string). */
export interface Argv {
  file: string;
  args: string[];
  /** A file given to the agent as its stdin (the prompt, for a CLI that reads it there). */
  stdinFile?: string;
  /**
   * Whether that stdin stays open while the agent runs: a pipe given the file's lines, then a
   * person's messages (a CLI that reads them mid-task), closed once the agent's result is out.
   */
  live?: boolean;
}

/** Quotes an argv for display (copy-paste into a POSIX shell); never used to run anything. */
export function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
