// The runner's public surface: what commands and the server use of it (what they read of its
// state without starting it is in ./state.ts). Everything else in this folder is the runner's own.
export { StopControl } from './stop-control.js';
export { DEFAULT_TIMINGS, type SessionTimings } from '../session/host.js';
export { RunEvents, type RunnerEvent, type EventName } from '../events/events.js';
export { parseDeadline, type RunLimits } from './run-limits.js';
export { logFile } from './log.js';
export { planRun, type DryRun, type DryRunItem } from './plan.js';
export { prepareSession } from '../session/prepare.js';
export { clisInUse, fallbackClisInUse, fallbackProblem } from '../session/fallback-clis.js';
export {
  tendWaiting,
  recoverWorkspace,
  startRunner,
  type RunnerOptions,
  type RunnerResult,
} from './start.js';
export { waitForChange, type Wait } from './wait.js';
export { enterSandbox, interruptStandIn } from '../sandbox/entry.js';
export { trialLand } from '../session/land-trial.js';
