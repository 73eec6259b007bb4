/** Where commands write: injectable so tests read what people would see. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Bytes as they are, with no newline added (`ralph logs --raw`). */
  raw(bytes: Buffer): void;
  /** Whether stdout is a terminal (live status, colour, human lines). */
  isTTY: boolean;
}

/** Errors of a stream whose reader went away (`ralph logs | head -1`). */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * A process stream that drops what is written once its reader has gone, as Unix tools do: the
 * command ends quietly (a runner keeps working), never with an EPIPE stack trace.
 */
function quietWhenClosed(stream: NodeJS.WriteStream): (chunk: string | Buffer) => void {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === undefined || !READER_GONE.has(error.code)) throw error;
    gone = true;
  });
  return (chunk) => {
    if (!gone) stream.write(chunk);
  };
}

const writeOut = quietWhenClosed(process.stdout);
const writeErr = quietWhenClosed(process.stderr);

/** The process's own stdout and stderr. */
export const processOutput: Output = {
  out: (text) => writeOut(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => writeErr(text.endsWith('\n') ? text : `${text}\n`),
  raw: (bytes) => writeOut(bytes),
  isTTY: process.stdout.isTTY === true,
};
