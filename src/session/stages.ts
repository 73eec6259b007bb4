import type { WorkSettings } from './work.js';
import type { SessionStages } from '../queue/lifecycle.js';

/**
 * The stages a success of an item's session goes through before the item is done (the
 * lifecycle table decides which first): only work on a branch of its own (git mode) lands, is
 * reviewed or has a pull request.
 */
export function stagesOfWork(work: WorkSettings): SessionStages | undefined {
  if (!work.git) return undefined;
  return {
    land: work.land !== undefined,
    pullRequest: work.forge !== undefined,
    push: work.push,
    review: work.review,
  };
}
