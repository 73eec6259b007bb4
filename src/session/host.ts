import type { Awake } from '../control/awake.js';
import type { ControlFiles } from '../control/files.js';
import type { RunnerIdentity } from '../control/runner-lock.js';
import type { Workspace } from '../config/workspace.js';
import type { CliHolds } from '../agent/cli-holds.js';
import type { RunEvents } from '../events/events.js';
import type { Clock } from '../lib/clock.js';
import type { Redactor } from '../lib/redact.js';
import type { FileCache } from '../lib/file-cache.js';
import type { Queue } from '../queue/queue.js';
import type { EgressProxy } from '../sandbox/proxy.js';

/** What checking a session's work needs of the run: the workspace, the log, its sandbox. */
export interface WorkHost {
  workspace: Workspace;
  events: RunEvents;
  redactor: Redactor;
  egress: EgressProxy;
  parentEnv: Readonly<Record<string, string | undefined>>;
}

/** Timings of a session's supervision that tests shorten. */
export interface SessionTimings {
  /** How often a running session's files are read and its limits checked. */
  tickMs: number;
  /** Minimum time between two heartbeat writes of the session record. */
  heartbeatMs: number;
}

/** Default timings. */
export const DEFAULT_TIMINGS: SessionTimings = {
  tickMs: 1000,
  heartbeatMs: 2_000,
};

/** A request to stop the run, as a session sees it: a second request forces. */
export interface StopAsked {
  force: boolean;
}

/** How a session hears that the run is asked to stop. */
export interface SessionStop {
  readonly signal: AbortSignal;
  readonly requested: StopAsked | undefined;
  /** Calls `listener` on every request from now on; returns the unsubscribe function. */
  onStop(listener: (request: StopAsked) => void): () => void;
}

/**
 * What the session host is given of the run: its workspace and queue, the log, the clock, the
 * run's stop, its CLIs held back, and its way of waiting out a fault a person can fix.
 */
export interface SessionHostContext extends WorkHost {
  queue: Queue;
  controlFiles: ControlFiles;
  clock: Clock;
  runner: RunnerIdentity;
  timings: SessionTimings;
  /** Template, persona and project files, re-read only when they change. */
  files: FileCache;
  awake: Awake;
  cliHolds: CliHolds;
  stop: SessionStop;
  /**
   * Runs a state or archive operation until it succeeds, waiting out what a person can fix (a
   * full disk, a queue out of reach); throws only when the run is stopped.
   */
  persistently<T>(operation: string, run: () => Promise<T>): Promise<T>;
}
