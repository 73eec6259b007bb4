// The runner's public surface: what commands and the server use of it. Everything else in this
// folder is the runner's own.
export { readBudget, type Budget } from './budget.js';
export { StopControl } from './control.js';
export { DEFAULT_TIMINGS, type RunnerTimings } from './context.js';
export { RunEvents, type RunnerEvent, type EventName } from './events.js';
export { parseDeadline, type RunLimits } from './gates.js';
export { liveRunner, type RunnerIdentity } from './lock.js';
export { logFile } from './log.js';
export { planRun, type Plan, type PlannedItem } from './plan.js';
export { prepareSession } from './prepare.js';
export { startRunner, type RunnerOptions, type RunnerResult } from './start.js';
export { waitForChange, type Wait } from './wait.js';
