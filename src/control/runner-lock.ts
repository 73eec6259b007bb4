import fsp from 'node:fs/promises';
import { isSameProcessAlive, processStartTime } from '../lib/procfs.js';
import { RalphError, isErrnoException } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import { readIfExists, writeJsonAtomically } from '../lib/fs.js';

/** Who holds a workspace: written into `state/runner.lock` by the owner. */
export interface RunnerIdentity {
  pid: number;
  startTime?: string;
  startedAt: string;
  /** Written by a runner that ended and released the lock: none means it died holding it. */
  endedAt?: string;
}

/** The held workspace lock. */
export interface RunnerLock {
  identity: RunnerIdentity;
  /** The dead runner whose lock was taken over, if one was (`unknown` when it left no name). */
  reclaimedFrom?: RunnerIdentity | 'unknown';
  /**
   * Whether the workspace's last runner died holding the lock (it never wrote its end): what
   * it had running may still run. The first runner of a workspace finds none.
   */
  lastRunnerDied: boolean;
  /** Set when another process took the lock from us (our event loop stalled past `stale`). */
  compromised(): Error | undefined;
  release(): Promise<void>;
}

const LOCK_OPTIONS = { realpath: false, stale: 30_000, update: 5_000, retries: 0 } as const;

async function readOwner(file: string): Promise<RunnerIdentity | undefined> {
  try {
    const text = await readIfExists(file);
    return text ? (JSON.parse(text) as RunnerIdentity) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the one-runner-per-workspace lock. A lock left by a runner that died (its pid gone, or
 * reused by another process) is taken over at once instead of after the stale period.
 */
export async function acquireRunnerLock(file: string, now: number): Promise<RunnerLock> {
  const identity: RunnerIdentity = {
    pid: process.pid,
    startTime: await processStartTime(process.pid),
    startedAt: new Date(now).toISOString(),
  };
  let compromised: Error | undefined;
  const options = {
    ...LOCK_OPTIONS,
    onCompromised: (error: Error) => {
      compromised = error;
    },
  };
  const { default: lockfile } = await import('proper-lockfile');
  const last = await readOwner(file);
  let release: () => Promise<void>;
  let reclaimedFrom: RunnerIdentity | 'unknown' | undefined;
  try {
    release = await lockfile.lock(file, options);
  } catch (error) {
    if (!isErrnoException(error) || error.code !== 'ELOCKED') throw error;
    const owner = await readOwner(file);
    if (owner !== undefined && (await isSameProcessAlive(owner.pid, owner.startTime))) {
      throw new RalphError(
        `another ralph runner (pid ${owner.pid}, since ${owner.startedAt}) is running this workspace`,
        ExitCode.locked,
      );
    }
    // The owner died without releasing: its lock directory is left over.
    reclaimedFrom = owner ?? 'unknown';
    await fsp.rm(`${file}.lock`, { recursive: true, force: true });
    try {
      release = await lockfile.lock(file, options);
    } catch {
      throw new RalphError('another ralph runner is starting on this workspace', ExitCode.locked);
    }
  }
  await writeJsonAtomically(file, identity);
  return {
    identity,
    reclaimedFrom,
    lastRunnerDied: last !== undefined && last.endedAt === undefined,
    compromised: () => compromised,
    release: async () => {
      // Its end, for the next runner and for status: never over a lock another runner took.
      if (compromised === undefined)
        await writeJsonAtomically(file, {
          ...identity,
          endedAt: new Date().toISOString(),
        } satisfies RunnerIdentity).catch(() => undefined);
      await release().catch(() => undefined);
    },
  };
}

/** The identity of the runner holding the workspace, if one is alive. */
export async function liveRunner(file: string): Promise<RunnerIdentity | undefined> {
  const owner = await readOwner(file);
  if (owner === undefined || owner.endedAt !== undefined) return undefined;
  const { default: lockfile } = await import('proper-lockfile');
  const locked = await lockfile.check(file, LOCK_OPTIONS).catch(() => false);
  return locked && (await isSameProcessAlive(owner.pid, owner.startTime)) ? owner : undefined;
}
