import { ExitCode } from './exit-codes.js';

/** An error meant for the user: its message is shown as is, and it carries the exit code. */
export class RalphError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.usage,
  ) {
    super(message);
    this.name = 'RalphError';
  }
}

/** Bad input from a file or a flag: the message names the source and the field. */
export class InputError extends RalphError {
  constructor(
    message: string,
    /** The field at fault, where one is (the HTTP API names it apart from the message). */
    readonly field?: string,
  ) {
    super(message, ExitCode.usage);
    this.name = 'InputError';
  }
}

/** Input naming something that is not there (an item or session id). */
export class NotFoundError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** A state file that cannot be trusted; it is never overwritten. */
export class CorruptStateError extends RalphError {
  constructor(
    message: string,
    /** The state file at fault. */
    readonly file?: string,
  ) {
    super(message, ExitCode.corruptState);
    this.name = 'CorruptStateError';
  }
}

/** Another writer held or took a lock: nothing was written, and trying again may succeed. */
export class ContentionError extends RalphError {
  constructor(message: string) {
    super(message, ExitCode.locked);
    this.name = 'ContentionError';
  }
}

/** A service ralph needs is away (the queue's database): waited out, never a failed item. */
export class UnavailableError extends RalphError {
  constructor(message: string) {
    super(message, ExitCode.unavailable);
    this.name = 'UnavailableError';
  }
}

/** Node's errno errors, named without Node's global types (the dashboard compiles this too). */
export interface ErrnoError extends Error {
  errno?: number;
  code?: string;
  path?: string;
  syscall?: string;
}

/** Narrows `unknown` errors to Node's errno errors. */
export function isErrnoException(error: unknown): error is ErrnoError {
  return error instanceof Error && typeof (error as ErrnoError).code === 'string';
}

/** Exhaustiveness check for switches over unions. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
