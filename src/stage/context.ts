import type { SandboxSettings } from '../agent/settings.js';
import type { CliName } from '../config/cli-names.js';
import type { EnvironmentConfig } from '../environment/config-schema.js';
import type { SessionSettings } from '../config/schema.js';
import type { RunEvents } from '../events/events.js';
import type { Clock } from '../lib/clock.js';
import type { Redactor } from '../lib/redact.js';
import type { Item } from '../queue/item.js';
import type { Post } from '../notify/night.js';
import type { Queue } from '../queue/queue.js';
import type { SandboxHost } from '../sandbox/entry.js';

/** Where and how an item's work is done, as its settings resolve (its persona's, its own). */
export interface ItemWork {
  workDir: string;
  /** The persona's settings and the item's, the nearest last: a stage's own settings are picked from them. */
  layers: readonly SessionSettings[];
  sandbox: SandboxSettings;
  /** What makes its worktree ready: setup, maintenance, the files copied in. */
  environment: EnvironmentConfig;
  /** Whether its branch lands on a target. */
  land: boolean;
  /** Whether its work goes to a pull request. */
  forge: boolean;
  /** The CLI its sessions run on, and those it falls back on, in order. */
  cli: CliName;
  fallbackClis: readonly CliName[];
}

/** A reviewer's session of an item's work, read-only. */
export interface ReviewerSession {
  cli: CliName;
  model?: string;
  /** Its task: the item, its criteria, the diff, and the verdict asked for. */
  prompt: string;
  /** The item's work dir in its worktree, and the worktree, which it only reads. */
  workDir: string;
  worktree: string;
  timeoutSeconds: number;
  sandbox: SandboxSettings;
  /** The JSON Schema its answer is held to, by a CLI that can be (claude, codex). */
  outputSchema: Readonly<Record<string, unknown>>;
}

/** How a reviewer's session ended. */
export interface ReviewerEnd {
  sessionId: string;
  /** Whether it ended as a success (what it answered is yet to be read). */
  ok: boolean;
  /** Its outcome (`success`, `timeout`, `rate_limited`…), and why, in a line. */
  outcome: string;
  message: string;
  /** Its last words: the verdict, if it gave one. */
  finalText: string;
  costUsd: number;
  /** Not to be tried before this (epoch ms): its CLI held back by a usage limit. */
  retryAt?: number;
}

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
  /** The item's work, or throws why its settings cannot be resolved. */
  workOf(item: Item): Promise<ItemWork>;
  /**
   * Runs a reviewer of the item's work as the runner runs any session (archived, its cost in
   * the budget, stopped with the run), and says how it ended; it settles nothing of the item.
   */
  runReviewer(item: Item, session: ReviewerSession): Promise<ReviewerEnd>;
}
