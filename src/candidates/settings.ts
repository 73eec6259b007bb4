import type { Config, SessionSettings } from '../config/schema.js';
import type { CandidateCli } from './config-schema.js';
import type { CandidateWhen } from '../config/candidate-whens.js';

/** An item's candidates as its settings resolve: who tries it, and when. */
export interface CandidateSettings {
  clis: readonly CandidateCli[];
  when: CandidateWhen;
}

/**
 * The item's candidates (git mode only: each needs a worktree and a branch of its own): the
 * nearest layer that names CLIs wins. The item's own mean `always` unless they say otherwise
 * (a person asked for them on this item); a persona's or the workspace's mean `after_failure`
 * (the thrifty default for every item). `layers` end with the item's own settings.
 */
export function candidatesOf(
  config: Config,
  layers: readonly SessionSettings[],
  git: boolean,
): CandidateSettings | undefined {
  if (!git) return undefined;
  for (let i = layers.length - 1; i >= 0; i--) {
    const choice = layers[i]?.candidates;
    if (choice?.clis === undefined) continue;
    const own = i === layers.length - 1;
    return { clis: choice.clis, when: choice.when ?? (own ? 'always' : 'after_failure') };
  }
  const { clis, when } = config.candidates;
  return clis === undefined ? undefined : { clis, when };
}
