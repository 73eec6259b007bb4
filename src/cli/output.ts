/** Where commands write: injectable so tests read what people would see. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Bytes as they are, with no newline added (`ralph logs --raw`). */
  raw(bytes: Buffer): void;
  /** Whether stdout is a terminal (live status, colour, human lines). */
  isTTY: boolean;
}

/** The process's own stdout and stderr. */
export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  raw: (bytes) => process.stdout.write(bytes),
  isTTY: process.stdout.isTTY === true,
};
