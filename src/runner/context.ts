import type { Slots } from '../session/slots.js';
import type { SessionTimings } from '../session/host.js';
import type { Awake } from '../control/awake.js';
import type { Pacing } from '../forecast/pacing.js';
import type { RunnerIdentity } from '../control/runner-lock.js';
import type { ControlFiles } from '../control/files.js';
import type { Workspace } from '../config/workspace.js';
import type { Clock } from '../lib/clock.js';
import type { Redactor } from '../lib/redact.js';
import type { Lease } from '../queue/lease.js';
import type { Queue } from '../queue/queue.js';
import type { RunEvents } from '../events/events.js';
import type { Wait } from './wait.js';
import type { FileCache } from '../lib/file-cache.js';
import type { EgressProxy } from '../sandbox/proxy.js';
import type { CliHolds } from '../agent/cli-holds.js';
import type { Post } from '../notify/night.js';

/** What every part of the loop shares: the workspace, its stores, the log and the clock. */
export interface RunnerContext {
  workspace: Workspace;
  queue: Queue;
  /** The sandboxes' way out: one proxy for the runner, a door for each sandbox. */
  egress: EgressProxy;
  /** The interrupt file, the wait and the running session's record. */
  controlFiles: ControlFiles;
  /** Everything the runner does, for the log file, the terminal and the server. */
  events: RunEvents;
  clock: Clock;
  redactor: Redactor;
  /** The environment the agent's is filtered from. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  runner: RunnerIdentity;
  timings: SessionTimings;
  /** How the loop sleeps (real timers and file watches; a fake clock's in tests). */
  wait: Wait;
  /** Template, persona and project files, re-read only when they change. */
  files: FileCache;
  /** The leases of the items this runner runs, by session: renewed while they run. */
  leases: Map<string, Lease>;
  /** Work dirs held by items running without a worktree: no second item may run there. */
  workDirsInUse: Set<string>;
  /** The blocks of ports of the items running now (`environment.ports`). */
  slots: Slots;
  /** The machine kept awake while sessions run (`run.keepAwake`). */
  awake: Awake;
  /** The night plan, and the order it starts items in while a usage window limits it. */
  pacing: Pacing;
  /** Posts a message through the notifications' outbox (started with the runner). */
  post: Post;
  /** The agent CLIs held back by a usage limit: their items fall back or wait. */
  cliHolds: CliHolds;
  /**
   * Whether the run ends rather than waits when the night is paused (`--drain`, `--once`, a
   * command that runs no night): a fault a person must fix ends it, never hangs it.
   */
  endsWhenPaused: boolean;
  /** Whether the workspace's last runner died holding its lock (what it ran may run still). */
  lastRunnerDied: boolean;
  /** Set when another runner took the workspace lock (this one stalled past its stale time). */
  lockLost: () => Error | undefined;
  /**
   * Called when a state or archive operation outlives `run.watchdog`: the runner is wedged (a
   * hung mount, say) and must end rather than hang all night. Does not return.
   */
  onWedged: (operation: string, afterMs: number) => void;
}
