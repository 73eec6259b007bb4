import { candidates } from '../candidates/candidate-stage.js';
import { decisions } from '../decide/decision-stage.js';
import { setups } from '../environment/setup-stage.js';
import { pullRequests } from '../forge/pull-request-stage.js';
import { lander } from '../land/lander.js';
import { lessons } from '../lessons/lessons-stage.js';
import { linearWriteBack } from '../linear/linear-stage.js';
import { pushes } from '../push/push-stage.js';
import { reviews } from '../review/review-stage.js';
import { writeBack } from '../sources/write-back.js';
import type { StageFactory } from '../stage/stage.js';

/**
 * The stages a night runs beside its workers, each a room of its own behind the one \`Stage\`
 * interface: the runner's loop runs what it is given here and names none of them. A new stage
 * is one more line, and its events in the lifecycle table (\`src/queue/lifecycle.ts\`).
 */
export const STAGES: readonly StageFactory[] = [
  setups,
  pushes,
  reviews,
  candidates,
  lander,
  pullRequests,
  writeBack,
  linearWriteBack,
  decisions,
  lessons,
];
