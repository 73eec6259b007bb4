/** Process exit codes of the `ralph` command, documented in docs/troubleshooting.md. */
export const ExitCode = {
  ok: 0,
  itemsFailed: 1,
  usage: 2,
  locked: 3,
  corruptState: 4,
  agentUnavailable: 5,
  /** `run --drain` / `--once`: the night is paused; nothing runs until a person resumes it. */
  paused: 6,
  /** `run --drain` / `--once`: a usage limit resets later than the run may wait. */
  limited: 7,
  /** The queue's database cannot be reached: EX_UNAVAILABLE. */
  unavailable: 69,
  /** The file system refused (read-only, full, permissions): EX_IOERR. */
  ioError: 74,
  /** A bug in ralph, or a runner wedged past its watchdog (EX_SOFTWARE). */
  internal: 70,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
