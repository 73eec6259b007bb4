import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ExitCode } from './exit-codes.js';
import { InputError, isErrnoException, RalphError } from './errors.js';

/** Mode of every file ralph creates: the archive and state hold the agent's words and costs. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of every directory ralph creates. */
export const PRIVATE_DIR_MODE = 0o700;

/** Refuses a path that is a symbolic link, so a planted link cannot redirect a write. */
export async function refuseSymlink(file: string): Promise<void> {
  try {
    const stat = await fsp.lstat(file);
    if (stat.isSymbolicLink()) {
      throw new RalphError(`${file} is a symbolic link; ralph does not write through links`);
    }
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return;
    throw error;
  }
}

/**
 * Makes a directory and its missing parents, each 0700 whatever the umask, one at a time:
 * Node's recursive mkdir spins forever on a file system that refuses (under /proc) instead of
 * failing. A path that cannot be made is refused with the reason.
 */
export async function makePrivateDirs(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const stat = await fsp.stat(at).catch((error: unknown) => {
      if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (stat !== undefined) {
      if (!stat.isDirectory()) throw new InputError(`${at} is not a directory`);
      break;
    }
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const at of missing) {
    try {
      await fsp.mkdir(at, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if (isErrnoException(error) && error.code === 'EEXIST') continue;
      const code = isErrnoException(error) ? ` (${error.code ?? error.message})` : '';
      throw new InputError(
        `${at} cannot be made: its file system refuses${code}; choose a directory on a writable file system`,
      );
    }
    // The mode asked for is masked by the umask: set it outright.
    await fsp.chmod(at, PRIVATE_DIR_MODE);
  }
}

/** Creates a directory (and its parents) as 0700 unless it exists; refuses links. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await makePrivateDirs(dir);
  const stat = await fsp.lstat(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new RalphError(`${dir} is not a directory (or is a symbolic link)`);
  }
}

/**
 * Refuses a directory that someone else could write into or owns: another user could plant
 * links or rewrite state there. Fails fast, before anything is touched.
 */
export async function refuseSharedDir(dir: string): Promise<void> {
  const stat = await fsp.lstat(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new RalphError(
      `${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid}); ralph will not use it`,
    );
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new RalphError(
      `${dir} is writable by others (mode ${(stat.mode & 0o777).toString(8)}); run "chmod 700 ${dir}" first`,
    );
  }
}

/**
 * Refuses a directory ralph cannot write (a read-only mount, say) before anything is touched,
 * rather than failing half-way through a state change.
 */
export async function refuseUnwritableDir(dir: string): Promise<void> {
  try {
    await fsp.access(dir, fs.constants.W_OK);
  } catch (error) {
    const code = isErrnoException(error) ? error.code : String(error);
    // The file system refused: EX_IOERR, as every such failure is (docs/troubleshooting.md's exit codes).
    throw new RalphError(
      `${dir} is not writable (${code}); ralph will not start: remount it read-write or fix its owner and mode`,
      ExitCode.ioError,
    );
  }
}

/**
 * Temp file of an atomic write: `<name>.<pid>.<n>.tmp`. The writer's pid in the name lets crash
 * recovery remove only what no live process can still be writing.
 */
export const ATOMIC_TEMP_FILE = /^.+\.(\d+)\.\d+\.tmp$/;

let tempFiles = 0;

/** `fs.fsync`, looked up at each call so that tests can make it fail like a dying disk. */
const fsync = (fd: number) =>
  new Promise<void>((resolve, reject) =>
    fs.fsync(fd, (error) => (error === null ? resolve() : reject(error))),
  );

/** How a file is written: `durable: false` skips the fsync (see `writeFileAtomically`). */
export interface WriteOptions {
  durable?: boolean;
}

/**
 * Writes a file atomically (temp file, fsync, rename), 0600, never through a symbolic link: a
 * reader sees the old text or the new, never part of either. `durable: false` skips the fsync,
 * for a file whose loss in a machine crash costs nothing. Every step goes through the thread
 * pool: on a hung mount the event loop goes on, and the runner's watchdog can end it.
 */
export async function writeFileAtomically(
  file: string,
  data: string | Buffer,
  { durable = true }: WriteOptions = {},
): Promise<void> {
  await refuseSymlink(file);
  const temp = `${file}.${process.pid}.${tempFiles++}.tmp`;
  const flags =
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
  const handle = await fsp.open(temp, flags, PRIVATE_FILE_MODE);
  try {
    // The umask may have taken bits away from the mode given to open.
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(data);
    if (durable) await fsync(handle.fd);
    await handle.close();
    await fsp.rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fsp.rm(temp, { force: true });
    throw error;
  }
}

/** Serialises a value as indented JSON and writes it atomically. */
export async function writeJsonAtomically(
  file: string,
  value: unknown,
  options?: WriteOptions,
): Promise<void> {
  await writeFileAtomically(file, `${JSON.stringify(value, null, 2)}\n`, options);
}

/** Whether something exists at a path. */
export async function pathExists(file: string): Promise<boolean> {
  return fsp.access(file).then(
    () => true,
    () => false,
  );
}

/** Creates a new file exclusively (fails if anything, a link included, is already there). */
export function openExclusive(file: string): number {
  return fs.openSync(file, 'wx', PRIVATE_FILE_MODE);
}

/**
 * Creates a new file with `data` (exclusively, 0600, never through a link). A failed write
 * removes what it left, so the same call can be tried again.
 */
export async function writeNewFile(file: string, data: string): Promise<void> {
  const handle = await fsp.open(file, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(data);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fsp.rm(file, { force: true });
    throw error;
  }
  await handle.close();
}

/** Appends to a file, creating it 0600; refuses to follow a link at the path. */
export async function appendPrivate(
  file: string,
  data: string,
  /** Flushed to the disk before it returns: a ledger's line outlives a crash right after. */
  options: { sync?: boolean } = {},
): Promise<void> {
  const flags =
    fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;
  const handle = await fsp.open(file, flags, PRIVATE_FILE_MODE);
  try {
    await handle.write(data);
    if (options.sync === true) await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Reads a file, or undefined if it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    // A read of a directory fails without naming it: the message must say which file.
    if (isErrnoException(error)) {
      error.path ??= file;
      error.syscall ??= 'read';
    }
    throw error;
  }
}

/**
 * The last `bytes` of a file (reading only those, however large the file), and whether
 * anything before them was left out; empty when the file cannot be read.
 */
export async function readTail(
  file: string,
  bytes: number,
): Promise<{ text: string; cut: boolean }> {
  try {
    const handle = await fsp.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return { text: buffer.toString('utf8'), cut: size > length };
    } finally {
      await handle.close();
    }
  } catch {
    return { text: '', cut: false };
  }
}

/** Parses JSON text; the error names the file and the line and column of the fault. */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(detail)?.[1];
    let where = '';
    if (position !== undefined) {
      const before = text.slice(0, Number(position));
      const line = before.split('\n').length;
      const column = Number(position) - before.lastIndexOf('\n');
      where = ` at line ${line}, column ${column}`;
    } else if (text.trim() === '') {
      where = ' (the file is empty)';
    }
    throw new InputError(`${file}: invalid JSON${where}: ${detail}`);
  }
}

/** Path of `target` relative to `base` when inside it, for messages. */
export function displayPath(target: string, base: string): string {
  const relative = path.relative(base, target);
  return relative.startsWith('..') || path.isAbsolute(relative) ? target : relative;
}

/** Whether `child` is `parent` or inside it. */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
