import type { StageFactory } from '../stage/stage.js';
import type { RunLimits } from './run-limits.js';

/** Options of `ralph run`. */
export interface LoopOptions {
  /** Run one item, then stop. */
  once: boolean;
  /** Stop after this many sessions. */
  maxIterations?: number;
  /** Stop when nothing is runnable (retries still waiting for their backoff are waited for). */
  drain: boolean;
  limits: RunLimits;
  /** Items run at once (`--workers`); `--once` runs one. */
  workers: number;
  /** The stages that tend items beside the workers (the commands say which). */
  stages: readonly StageFactory[];
}
