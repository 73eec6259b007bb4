// What commands read of a runner's state without loading the runner: its budget and whether
// it is alive. A surface of its own so that `ralph status` starts fast (src/runner/index.ts
// loads the whole runner).
export { readBudget, type Budget } from './budget.js';
export { liveRunner, type RunnerIdentity } from './lock.js';
export { gatherStatus, liveServer, type StatusReport } from './workspace-status.js';
