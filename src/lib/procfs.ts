import fs from 'node:fs';
import { isErrnoException } from './errors.js';

/**
 * A process's start time (clock ticks since boot, field 22 of /proc/<pid>/stat), or undefined
 * when it is gone. Together with the pid it names one process: a reused pid has another.
 */
export function processStartTime(pid: number): Promise<string | undefined> {
  // Unreadable is not gone: a lock's holder that cannot be looked at is never taken as dead.
  return Promise.resolve(liveStatFields(pid, GONE)?.[19]);
}

/** Whether the process recorded as (pid, start time) is still the one running. */
export async function isSameProcessAlive(
  pid: number,
  startTime: string | undefined,
): Promise<boolean> {
  const current = await processStartTime(pid);
  return current !== undefined && (startTime === undefined || current === startTime);
}

// /proc files are made in memory when read: a read through the thread pool costs several times
// the read itself, and a scan reads one or two for every process of the machine (after every
// session). They are read synchronously, one at a time (never near the descriptor limit), and
// a long scan gives way to the event loop every so many processes.
const SCAN_SLICE = 256;

/**
 * Pids of live (not zombie) processes that belong to a session: members of its process group,
 * or carriers of its environment marker `name=value` wherever they moved to. `since` (a start
 * time, as `processStartTime` gives it) spares reading the environment of every process started
 * before it: one that carries the marker was made after the session's first process was.
 */
export async function findSessionProcesses(
  groupId: number | undefined,
  marker: { name: string; value: string },
  since?: string,
): Promise<number[]> {
  const entry = `${marker.name}=${marker.value}\0`;
  const inside = Buffer.from(`\0${entry}`);
  const first = Buffer.from(entry);
  const earliest = since === undefined ? 0 : Number(since);
  const belongs = (pid: number): boolean => {
    const fields = liveStatFields(pid, GONE_OR_NOT_OURS);
    if (fields === undefined) return false;
    if (groupId !== undefined && Number(fields[2]) === groupId) return true;
    if (Number(fields[19]) < earliest) return false;
    const environ = unlessGone(() => fs.readFileSync(`/proc/${pid}/environ`), GONE_OR_NOT_OURS);
    return (
      environ !== undefined &&
      (environ.includes(inside) || environ.subarray(0, first.length).equals(first))
    );
  };
  const pids = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid);
  const found: number[] = [];
  for (const [i, pid] of pids.entries()) {
    if (i > 0 && i % SCAN_SLICE === 0) await new Promise(setImmediate);
    if (belongs(pid)) found.push(pid);
  }
  return found;
}

/**
 * Fields 3 onwards of /proc/<pid>/stat (fields[0] is the state), or undefined when the process
 * has exited already (a zombie) or reading failed with one of `absent`'s codes.
 */
function liveStatFields(pid: number, absent: Set<string>): string[] | undefined {
  const stat = unlessGone(() => readStatLine(pid), absent);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: count from its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields;
}

// One buffer for every stat line a scan reads: a line is a 16-byte name and some fifty numbers,
// well under 1 KB, where reading the file whole would allocate 64 KB for each.
const statLine = Buffer.alloc(4096);

function readStatLine(pid: number): string {
  const fd = fs.openSync(`/proc/${pid}/stat`, 'r');
  try {
    return statLine.toString('utf8', 0, fs.readSync(fd, statLine));
  } finally {
    fs.closeSync(fd);
  }
}

const GONE = new Set(['ENOENT', 'ESRCH']);
const GONE_OR_NOT_OURS = new Set([...GONE, 'EACCES', 'EPERM']);

/** What `read` reads, or undefined when it failed with one of `absent`'s codes. */
function unlessGone<T>(read: () => T, absent: Set<string>): T | undefined {
  try {
    return read();
  } catch (error) {
    if (isErrnoException(error) && absent.has(error.code ?? '')) return undefined;
    throw error;
  }
}

/** Sends a signal, ignoring a process or group that is already gone. */
export function signalQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ESRCH') return false;
    throw error;
  }
}
