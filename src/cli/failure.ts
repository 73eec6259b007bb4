import { isErrnoException } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';

/** What ralph was doing when a system call failed, by the call's name. */
const DOING: Record<string, string> = {
  open: 'opening',
  read: 'reading',
  write: 'writing',
  rename: 'replacing',
  chown: 'setting the owner of',
  chmod: 'setting the mode of',
  fchmod: 'setting the mode of',
  fsync: 'flushing',
  mkdir: 'creating',
  mkdtemp: 'creating',
  rmdir: 'removing',
  rm: 'removing',
  unlink: 'removing',
  scandir: 'listing',
  stat: 'looking at',
  lstat: 'looking at',
  access: 'checking',
  watch: 'watching',
  spawn: 'starting',
  realpath: 'resolving',
  symlink: 'linking',
  link: 'linking',
  copyfile: 'copying',
};

/** What the error code means, and what a person can do about it. */
const REMEDY: Record<string, [meaning: string, action: string]> = {
  ENOENT: [
    'it does not exist (or vanished meanwhile)',
    'check the path, then run the command again',
  ],
  EACCES: ['permission denied', 'check who owns it and its mode'],
  EPERM: ['the operation is not permitted', 'check who owns it and its mode'],
  ENOSPC: ['no space left on the device', 'free some space, then run the command again'],
  EDQUOT: ['the disk quota is exceeded', 'free some space, then run the command again'],
  EROFS: ['the file system is read-only', 'remount it read-write, then run the command again'],
  EIO: ['the disk reported an input/output error', 'check the disk, then run the command again'],
  EISDIR: ['it is a directory', 'give the path of a file'],
  ENOTDIR: ['a part of the path is not a directory', 'check the path'],
  EEXIST: ['something is already there', 'remove it or choose another path'],
  ELOOP: ['it is a symbolic link ralph will not follow', 'replace the link with a real file'],
  EMFILE: ['too many open files', 'raise the limit (ulimit -n), then run the command again'],
  ENFILE: ['the system has too many open files', 'run the command again later'],
  EBUSY: ['it is busy', 'run the command again'],
  ENAMETOOLONG: ['the path is too long', 'use a shorter path'],
};

/** What an errno error means for people: `it does not exist (ENOENT)`. */
export function errnoMeaning(error: NodeJS.ErrnoException): string {
  const code = error.code ?? 'unknown';
  return `${REMEDY[code]?.[0] ?? 'the system refused'} (${code})`;
}

/** A failure as one line for people, the exit code, and the whole error for the log. */
export interface Failure {
  line: string;
  exitCode: number;
  detail: string;
}

/**
 * Describes an error no command handled: a system call's failure names what ralph was doing,
 * the path and what to do (exit 74); anything else is a bug (exit 70). The raw text and stack
 * go to the log, never to the person's terminal.
 */
export function describeFailure(command: string, error: unknown, logFile?: string): Failure {
  const who = command === '' ? 'ralph' : `ralph ${command}`;
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const where = logFile === undefined ? '' : `; the full error is in ${logFile}`;
  if (isErrnoException(error) && error.code !== undefined) {
    const code = error.code;
    const [meaning, action] = REMEDY[code] ?? [code, 'run the command again'];
    const doing = DOING[error.syscall ?? ''] ?? 'using';
    const target = error.path === undefined ? 'a file' : error.path;
    return {
      line: `${who}: failed ${doing} ${target}: ${meaning} (${code}); ${action}${where}`,
      exitCode: ExitCode.ioError,
      detail,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    line: `${who}: internal error: ${message.split('\n')[0] ?? ''}. This is a bug in ralph; please report it${where}`,
    exitCode: ExitCode.internal,
    detail,
  };
}
