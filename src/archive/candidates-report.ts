import { addUsd } from '../lib/usd.js';

/** What `candidatesReport` reads of a queue item. */
export interface CandidatesOfItem {
  id: string;
  costUsd: number;
  roster?: readonly {
    letter: string;
    cli: string;
    model?: string;
    out?: string;
    head?: string;
  }[];
  candidateOf?: { item: string };
  judgement?: { picked?: string; session?: string };
  /** A person's last decision on it, and the candidate they took instead of the pick. */
  decision?: { kind: string; candidate?: string };
}

/** One agent (a CLI and its model) as a candidate: how often it passed, was picked, was kept. */
export interface CandidateAgent {
  agent: string;
  candidates: number;
  /** Its gates passed. */
  passed: number;
  picked: number;
  /** Picked, and the person accepted the item. */
  accepted: number;
}

/** What candidates did for the items they tried, and what they taught. */
export interface CandidatesReport {
  /** Items tried by candidates whose pick was made (or could not be). */
  items: number;
  byAgent: CandidateAgent[];
  /** A judge's picks (none by the gates alone): those the person accepted, and those they overturned (rejected, or took another candidate). */
  judge: { picks: number; kept: number; overturned: number };
  /** Dollars per accepted change: of items with candidates, and of those without. */
  costPerAccepted: { withCandidates?: number; without?: number };
}

const accepted = (item: CandidatesOfItem) => item.decision?.kind === 'accepted';

/** The person accepted the item with the candidate that was picked. */
const pickKept = (item: CandidatesOfItem) =>
  accepted(item) &&
  (item.decision?.candidate === undefined || item.decision.candidate === item.judgement?.picked);

/** Dollars per accepted item of `items`, none when none was accepted. */
function perAccepted(items: readonly CandidatesOfItem[]): number | undefined {
  const kept = items.filter(accepted);
  if (kept.length === 0) return undefined;
  return kept.reduce((sum, item) => addUsd(sum, item.costUsd), 0) / kept.length;
}

/**
 * Which agents win on this repository, at what cost: per CLI and model, how often its
 * candidate passed its gates, was picked, and was accepted by the person; how often the person
 * kept the judge's pick; and the dollars per accepted change with candidates and without (a
 * candidate's own item is counted in its item's cost, not apart). None without candidates.
 */
export function candidatesReport(items: readonly CandidatesOfItem[]): CandidatesReport | undefined {
  const tried = items.filter((item) => item.roster !== undefined && item.judgement !== undefined);
  if (tried.length === 0) return undefined;
  const agents = new Map<string, CandidateAgent>();
  for (const item of tried)
    for (const entry of item.roster ?? []) {
      const agent = `${entry.cli}${entry.model === undefined ? '' : ` ${entry.model}`}`;
      const row = agents.get(agent) ?? { agent, candidates: 0, passed: 0, picked: 0, accepted: 0 };
      row.candidates++;
      if (entry.out === undefined && entry.head !== undefined) row.passed++;
      if (item.judgement?.picked === entry.letter) row.picked++;
      const taken = item.decision?.candidate ?? item.judgement?.picked;
      if (accepted(item) && taken === entry.letter) row.accepted++;
      agents.set(agent, row);
    }
  const judged = tried.filter(
    (i) => i.judgement?.session !== undefined && i.judgement.picked !== undefined,
  );
  const decided = judged.filter((i) => i.decision !== undefined);
  const alone = items.filter((i) => i.roster === undefined && i.candidateOf === undefined);
  return {
    items: tried.length,
    byAgent: [...agents.values()].sort(
      (a, b) => b.picked - a.picked || a.agent.localeCompare(b.agent),
    ),
    judge: {
      picks: judged.length,
      kept: decided.filter(pickKept).length,
      overturned: decided.filter((i) => !pickKept(i) && i.decision?.kind !== 'deferred').length,
    },
    costPerAccepted: { withCandidates: perAccepted(tried), without: perAccepted(alone) },
  };
}
