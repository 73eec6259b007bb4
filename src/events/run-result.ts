// Its own module: the run's events name it, and the loop, which emits them, makes it.

/** What a run did, for the exit code and the closing line. */
export interface LoopResult {
  /** Its authors' sessions (what `--max-iterations` counts). */
  sessions: number;
  /** Its reviewers' sessions: with `sessions`, every session the run paid for (status counts both). */
  reviews: number;
  succeeded: number;
  failed: number;
  rejected: number;
  /**
   * Items whose work passed its gates and waits unreviewed (its reviewer failed): they wait for
   * a reviewer again, or a person; no failure of the run's.
   */
  unreviewed: number;
  /** Items whose last session of this run failed by their own fault and that wait for a retry. */
  awaitingRetry: number;
  /** Sessions by outcome (`success`, `gate_failed`, `no_result`, …). */
  outcomes: Record<string, number>;
  costUsd: number;
  /** Why the loop ended early (deadline, budget), if it did. */
  ended?: string;
  /** Set when the agent could not be started at all. */
  agentUnavailable?: string;
  /** Set when a `--drain` or `--once` run ended because the night is paused: the reason. */
  paused?: string;
  /** Set when a `--drain` or `--once` run ended on a usage limit that resets too late. */
  limited?: { until: number; message: string };
}
