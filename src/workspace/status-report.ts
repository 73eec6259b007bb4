import type { FleetRunner } from '../queue/fleet-runner.js';
import type { LandingTally, PullRequestTally, StalledTally } from '../queue/queue.js';
/**
 * The shapes of a workspace's status, and nothing else: what `ralph status --json` prints and
 * the server's `/health` sends. Free of imports, so the dashboard (built without Node's types)
 * reads the same definitions.
 */

/** A running session as the status shows it. */
export interface RunningSession {
  /** The agent CLI that runs it. */
  cli: string;
  itemId: string;
  itemTitle: string;
  sessionId: string;
  status: string;
  startedAt: string;
  elapsedSeconds: number;
  lastActivityAt?: string;
  idleSeconds?: number;
  assistantMessages: number;
  toolCalls: number;
  lastTool?: string;
  costUsd?: number;
  /** `maxBudgetUsd` is absent when nobody holds the session to a budget while it runs. */
  limits?: { timeoutSeconds: number; idleTimeoutSeconds: number; maxBudgetUsd?: number };
  /** The cost so far is an estimate from tokens. */
  costEstimated?: boolean;
  /** Git mode: the item's branch. */
  branch?: string;
  /** The quality gate the session's work is being checked by, once its agent has finished. */
  gate?: string;
}

/** The state of a workspace: what `ralph status --json` prints and the server's health says. */
export interface StatusReport {
  root: string;
  runner?: { pid: number; startedAt: string };
  paused?: { reason: string };
  pauseAfterCurrent?: { reason: string };
  waiting?: { until: string; reason: string; event: string };
  /** Agent CLIs the runner starts no item on (a usage limit, the reserve), each until when. */
  heldClis?: { cli: string; until?: string; reason: string; kind: string }[];
  queue: Record<string, number>;
  /** Goes up with every write of the queue file. */
  queueVersion: number;
  /** A queue shared in a database: where it is, the fleet's pause and runners. */
  fleet?: {
    queue: string;
    /** Why the database cannot be read now (the queue's figures above are then empty). */
    unreachable?: string;
    paused?: { reason: string; at: string; by: string };
    runners: FleetRunner[];
  };
  /**
   * Landing (absent in a workspace that never landed): each target's landed items and newest
   * landed commit, and the items a landing refused since (`pending`: back with their agent;
   * `failed`: their rounds ran out), with why.
   */
  landing?: {
    targets: { target: string; landed: number; commit: string }[];
    refused: LandingTally['refused'];
  };
  /** Pull requests awaiting their checks, or a person's review (absent when there are none). */
  pullRequests?: PullRequestTally[];
  /** Items whose agent asked a person something, with the question (`ralph say` answers). */
  needsInput?: { id: string; question: string }[];
  /**
   * Items a stage could not move on: unreviewed (why their reviewer failed) and decisions left
   * half carried out (`deciding`), absent when there are none.
   */
  stalled?: StalledTally[];
  /** Every running session, oldest first (several with `--workers`). */
  running: RunningSession[];
  /**
   * Items a runner that died left running (no runner is alive): the next `ralph run` settles
   * them, and `ralph cancel` may.
   */
  orphaned?: { itemIds: string[]; sessions: string[] };
  /** State files that cannot be read (left as they are), and the copies set aside of them. */
  unreadable?: { file: string; problem: string }[];
  quarantined?: string[];
  /** Where a `ralph serve` of this workspace listens (its address, without the token). */
  server?: { pid: number; url: string; readOnly: boolean };
  budget: {
    run?: {
      startedAt: string;
      costUsd: number;
      iterations: number;
      maxCostUsd?: number;
      maxIterations?: number;
    };
    totalCostUsd: number;
    iterations: number;
  };
}
