import { lowerMedian } from '../lib/lower-median.js';
import { addUsd } from '../lib/usd.js';
import type { Item } from '../queue/item.js';
import { standingLines, type LedgerLine } from '../queue/ledger.js';
import type { RuleNight } from '../lessons/figures.js';

// What the person's decisions came to, night over night (a UTC day of decisions): how much of
// the work they accepted at once, what an accepted change cost, and their time on a decision.

/** One night of decisions. */
export interface DecisionNight {
  day: string;
  /** Items decided on for the first time (accepted or rejected), and those accepted at once. */
  firstDecided: number;
  firstPassAccepted: number;
  /** Changes accepted, and what those whose item is still in the queue cost together. */
  accepted: number;
  costed: number;
  acceptedCostUsd: number;
  /** The median time an item's page was open before a decision, of those timed. */
  medianReviewMs?: number;
  /** The rules a person accepted: checked on changes in their scope, found broken. */
  rulesApplied: number;
  rulesBroken: number;
  /** Rejections of work found breaking a rule accepted before: the mistake the rule was for. */
  repeatedRejections: number;
}

/**
 * The nights of decisions (and of rules checked: `rules`, by day) since `since`, oldest first. An item is accepted at the first pass when
 * its first acceptance or rejection (a deferral decides nothing) is an acceptance; its cost is
 * the queue's, all its attempts and reviews included.
 */
export function decisionNights(
  lines: readonly LedgerLine[],
  items: readonly Item[],
  since: number | undefined,
  rules: ReadonlyMap<string, RuleNight> = new Map(),
): DecisionNight[] {
  const costOf = new Map(items.map((item) => [item.id, item.costUsd]));
  const decided = new Set<string>();
  const nights = new Map<string, DecisionNight & { timed: number[] }>();
  const nightOf = (day: string) => {
    const night = nights.get(day) ?? {
      day,
      firstDecided: 0,
      firstPassAccepted: 0,
      accepted: 0,
      costed: 0,
      acceptedCostUsd: 0,
      rulesApplied: rules.get(day)?.applied ?? 0,
      rulesBroken: rules.get(day)?.broken ?? 0,
      repeatedRejections: rules.get(day)?.repeatedRejections ?? 0,
      timed: [],
    };
    nights.set(day, night);
    return night;
  };
  for (const day of rules.keys()) nightOf(day);
  for (const line of standingLines(lines)) {
    const decides = line.decision !== 'deferred';
    const first = decides && !decided.has(line.item);
    if (decides) decided.add(line.item);
    if (since !== undefined && Date.parse(line.at) < since) continue;
    const night = nightOf(line.at.slice(0, 10));
    const accepted = line.decision === 'accepted';
    if (first) night.firstDecided++;
    if (first && accepted) night.firstPassAccepted++;
    if (line.reviewMs !== undefined) night.timed.push(line.reviewMs);
    if (!accepted) continue;
    night.accepted++;
    const cost = costOf.get(line.item);
    if (cost === undefined) continue;
    night.costed++;
    night.acceptedCostUsd = addUsd(night.acceptedCostUsd, cost);
  }
  return [...nights.values()]
    .sort((a, b) => (a.day < b.day ? -1 : 1))
    .map(({ timed, ...night }) => {
      const medianReviewMs = lowerMedian(timed);
      return medianReviewMs === undefined ? night : { ...night, medianReviewMs };
    });
}
