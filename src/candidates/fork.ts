import { ItemSchema, itemSettingsOf, type CandidateEntry, type Item } from '../queue/item.js';
import type { Queue } from '../queue/queue.js';
import type { Lease } from '../queue/lease.js';
import type { ItemEvent } from '../queue/lifecycle.js';
import type { CandidateSettings } from './settings.js';
import { rosterOf } from './roster.js';

/**
 * A candidate's own item: the parent's task, settings and persona, on the candidate's CLI and
 * model, from `base` (the same commit for every candidate), with no fallback (its CLI is the
 * point) and no stage after its gates: the candidates stage judges and carries the pick on.
 */
export function candidateItem(
  parent: Item,
  entry: CandidateEntry & { item: string },
  base: string,
  now: number,
): Item {
  const own = itemSettingsOf(parent);
  const settings = 'settings' in own ? { ...own.settings, candidates: undefined } : {};
  return ItemSchema.parse({
    ...settings,
    id: entry.item,
    title: parent.title,
    ...(parent.body === undefined ? {} : { body: parent.body }),
    ...(parent.bodyFile === undefined ? {} : { bodyFile: parent.bodyFile }),
    ...(parent.criteria === undefined ? {} : { criteria: parent.criteria }),
    vars: parent.vars,
    priority: parent.priority,
    // What the parent waited for was there when it was claimed.
    dependsOn: [],
    ...(parent.agent === undefined ? {} : { agent: parent.agent }),
    cli: entry.cli,
    model: entry.model,
    git: true,
    fallback: { clis: [] },
    review: false,
    forge: false,
    land: { enabled: false },
    createdAt: new Date(now).toISOString(),
    baseCommit: base,
    candidateOf: {
      item: parent.id,
      letter: entry.letter,
      ...(entry.shareUsd === undefined ? {} : { shareUsd: entry.shareUsd }),
    },
  });
}

/**
 * Puts in the queue the candidates of `parent` (waiting for them) not there yet: forked, an item
 * only says who its candidates are, and a crash between that and this is made good by the next
 * look; a candidate that already ran is not run again. An id taken by an item that is no
 * candidate of the parent refuses them all, with why.
 */
export async function addMissingCandidates(
  queue: Queue,
  parent: Item,
  present: readonly Item[],
  now: number,
): Promise<string | undefined> {
  const wanted = (parent.roster ?? []).filter(
    (c): c is CandidateEntry & { item: string } => c.item !== undefined,
  );
  const taken = present.find(
    (item) => item.candidateOf?.item !== parent.id && wanted.some((c) => c.item === item.id),
  );
  if (taken !== undefined)
    return `its candidate's id ${JSON.stringify(taken.id)} is another item's: rename that item, or give this one another id`;
  if (parent.baseCommit === undefined) return 'it has no base commit for its candidates';
  const missing = wanted.filter((c) => !present.some((item) => item.id === c.item));
  if (missing.length > 0)
    await queue.importItems(
      missing.map((c) => candidateItem(parent, c, parent.baseCommit as string, now)),
    );
  return undefined;
}

/** The fork of an item claimed to be tried by its candidates, from `base`. */
export function forkedAtClaim(
  claimed: Item,
  wanted: { candidates: CandidateSettings; base: string },
  lease: Lease,
  now: number,
): ItemEvent {
  const roster = rosterOf(claimed, wanted.candidates);
  return { kind: 'candidates_forked', roster, base: wanted.base, lease, now };
}

/** What the log says of a fork: the item and each candidate's letter, CLI and model. */
export function forkedSaid(item: Item): { item: string; candidates: string[] } {
  return {
    item: item.id,
    candidates: (item.roster ?? []).map(
      (c) => `${c.letter} ${c.cli}${c.model === undefined ? '' : ` ${c.model}`}`,
    ),
  };
}
