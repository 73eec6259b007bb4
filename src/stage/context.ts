import type { RunEvents } from '../events/events.js';
import type { Clock } from '../lib/clock.js';
import type { Redactor } from '../lib/redact.js';
import type { Post } from '../notify/night.js';
import type { Queue } from '../queue/queue.js';
import type { SandboxHost } from '../sandbox/entry.js';
import type { Sessions } from './sessions.js';

/**
 * What a stage is given of the run: the workspace and its queue, the log, the clock, and the
 * runner's ways of waiting out a fault (a full disk, a queue out of reach) and of pausing the
 * night. A stage knows nothing else of the runner.
 */
export interface StageContext extends SandboxHost {
  readonly queue: Queue;
  readonly events: RunEvents;
  readonly clock: Clock;
  readonly redactor: Redactor;
  /** Aborted when the run is asked to stop. */
  readonly signal: AbortSignal;
  /** Whether the run was asked to stop. */
  stopped(): boolean;
  /**
   * Runs a state operation until it succeeds, waiting out what a person can fix (a full disk,
   * a queue out of reach) as the runner does; throws only when the run is stopped.
   */
  persistently<T>(operation: string, run: () => Promise<T>): Promise<T>;
  /** Pauses the night for a person, with why (the interrupt file). */
  pause(reason: string): Promise<void>;
  /** Why the night is paused, if it is. */
  pauseReason(): Promise<string | undefined>;
  /** Posts a message (an issue told its item's end) through the notifications' outbox. */
  readonly post: Post;
  /** The session host: an item's work resolved, and the sessions a stage asks for run. */
  readonly sessions: Sessions;
}
