// Who tries an item: its roster of candidates, each one's id and its share of a cap. The stage
// forks from it, and the runner and the session host read it too (what follows a failure).
import type { CliName } from '../config/cli-names.js';
import { addUsd } from '../lib/usd.js';
import type { CandidateEntry, Item } from '../queue/item.js';
import { shareOf, type CandidateSettings } from './settings.js';

/** The id of an item's candidate: its own id and the candidate's letter. */
export function candidateId(parent: string, letter: string): string {
  return `${parent}.${letter.toLowerCase()}`;
}

const letterAt = (i: number) => String.fromCharCode(65 + i);

/**
 * The roster of an item's candidates. Forked at its claim, every candidate runs; after its own
 * attempt failed, that attempt is the first (no item of its own: the settle marks it out), and
 * the others are those of the settings besides the one its own CLI and model already were.
 */
export function rosterOf(
  parent: Item,
  settings: CandidateSettings,
  own?: { cli: CandidateEntry['cli']; model?: string; spentUsd: number },
): CandidateEntry[] {
  const running = (clis: CandidateSettings['clis'], from: number, spentUsd: number) => {
    const share = shareOf(settings, spentUsd, clis.length);
    return clis.map((c, i) => ({
      letter: letterAt(from + i),
      ...c,
      item: candidateId(parent.id, letterAt(from + i)),
      ...(share === undefined ? {} : { shareUsd: share }),
    }));
  };
  if (own === undefined) return running(settings.clis, 0, 0);
  const ownIndex = settings.clis.findIndex((c) => c.cli === own.cli && c.model === own.model);
  const others = settings.clis.filter((_, i) => i !== ownIndex);
  return [
    { letter: 'A', cli: own.cli, ...(own.model === undefined ? {} : { model: own.model }) },
    ...running(others, 1, own.spentUsd),
  ];
}

/**
 * The candidates that try an item should its session's end (which cost `costUsd`) fail it
 * (`after_failure`): none for a candidate, an item forked already, work on no branch of its
 * own, or an item whose own attempts spent the candidates' cap already.
 */
export function candidatesAfterFailure(
  item: Item,
  session: {
    work: { candidates?: CandidateSettings };
    checkout?: unknown;
    settings: { cli: CliName; model?: string };
  },
  costUsd: number,
): CandidateEntry[] | undefined {
  const { candidates } = session.work;
  if (candidates?.when !== 'after_failure' || session.checkout === undefined) return undefined;
  if (item.roster !== undefined || item.candidateOf !== undefined) return undefined;
  const spentUsd = addUsd(item.costUsd, costUsd);
  if (candidates.maxCostUsd !== undefined && spentUsd >= candidates.maxCostUsd) return undefined;
  const { cli, model } = session.settings;
  return rosterOf(item, candidates, { cli, model, spentUsd });
}
