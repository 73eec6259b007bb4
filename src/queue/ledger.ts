import type { Workspace } from '../config/workspace.js';
import { readJsonLines } from '../lib/json-lines.js';
import * as z from '../lib/zod.js';
import { DECISION_KINDS } from './decision-kinds.js';

// The ledger of a person's decisions (`state/decisions.jsonl`): one line a decision, written
// before it takes effect on its item (src/workspace/decide.ts writes it).

/** One line of the ledger. */
export const LedgerLineSchema = z.looseObject({
  id: z.string().min(1),
  item: z.string().min(1),
  decision: z.enum(DECISION_KINDS),
  note: z.string().optional(),
  then: z.enum(['retry', 'cancel']).optional(),
  until: z.string().optional(),
  /** Accepted over its reviewer (its rounds spent): where the work goes on, as an approval's. */
  over: z.object({ land: z.boolean(), pullRequest: z.boolean() }).optional(),
  /** Accepted: the candidate taken, if not the one picked. */
  candidate: z.string().optional(),
  by: z.string().min(1),
  at: z.string(),
  /** The item's status when it was decided on. */
  status: z.string(),
  /** Its risk score then, with the parts of it. */
  risk: z.object({
    score: z.number(),
    parts: z.array(z.object({ name: z.string(), points: z.number(), why: z.string() })),
  }),
  /** Its reviewer's verdict then (`approve`, `request_changes`), or none. */
  verdict: z.string().nullable(),
  /** What its reviewer found then that was not met: failed criteria, blocking and major findings. */
  findings: z.array(z.string()).optional(),
  /** Git mode: the change decided on, from its base to the commit recorded as its work. */
  change: z.object({ base: z.string(), head: z.string() }).optional(),
  /** When its work was done (the item's `finishedAt` then): the wait for the decision starts. */
  doneAt: z.string().optional(),
  /** How long its page was open before the decision (the dashboard's, the terminal inbox's). */
  reviewMs: z.number().nonnegative().optional(),
  /** Set on a second line of the same id: the decision could not be applied, and why. */
  void: z.string().optional(),
});
export type LedgerLine = z.output<typeof LedgerLineSchema>;

/** The ledger's lines that stand: neither a void nor voided by one. */
export function standingLines(lines: readonly LedgerLine[]): LedgerLine[] {
  const voided = new Set(lines.filter((l) => l.void !== undefined).map((l) => l.id));
  return lines.filter((l) => l.void === undefined && !voided.has(l.id));
}

/** The ledger's lines, oldest first; a line a crash cut short (never applied) is left out. */
export function readLedger(workspace: Pick<Workspace, 'paths'>): Promise<LedgerLine[]> {
  return readJsonLines(workspace.paths.decisions, LedgerLineSchema);
}
