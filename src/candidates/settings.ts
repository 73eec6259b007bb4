import type { Config, SessionSettings } from '../config/schema.js';
import type { CandidateCli } from './config-schema.js';
import type { CandidateWhen } from '../config/candidate-whens.js';
import type { Item } from '../queue/item.js';

/** An item's candidates as its settings resolve: who tries it, and when. */
export interface CandidateSettings {
  clis: readonly CandidateCli[];
  when: CandidateWhen;
  /** What its candidates and their judge may spend together. */
  maxCostUsd?: number;
}

/**
 * What each candidate may spend, at most, when `settings` cap the candidates together: an even
 * share of what is left of the cap after `spentUsd` (its own attempt's), among the `count`
 * candidates and their judge.
 */
export function shareOf(
  settings: CandidateSettings,
  spentUsd: number,
  count: number,
): number | undefined {
  if (settings.maxCostUsd === undefined) return undefined;
  return Math.max(0, settings.maxCostUsd - spentUsd) / (count + 1);
}

/** What a candidate may still spend of its share of its item's cap (none set: undefined). */
export function shareLeft(item: Item): number | undefined {
  const share = item.candidateOf?.shareUsd;
  return share === undefined ? undefined : share - item.costUsd;
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
  // The cap of the nearest layer that names one, else the workspace's.
  const maxCostUsd =
    layers.findLast((layer) => layer.candidates?.maxCostUsd !== undefined)?.candidates
      ?.maxCostUsd ?? config.candidates.maxCostUsd;
  const capped = maxCostUsd === undefined ? {} : { maxCostUsd };
  for (let i = layers.length - 1; i >= 0; i--) {
    const choice = layers[i]?.candidates;
    if (choice?.clis === undefined) continue;
    const own = i === layers.length - 1;
    return {
      clis: choice.clis,
      when: choice.when ?? (own ? 'always' : 'after_failure'),
      ...capped,
    };
  }
  const { clis, when } = config.candidates;
  return clis === undefined ? undefined : { clis, when, ...capped };
}
