import { standingLines, type LedgerLine } from '../queue/ledger.js';
import type { RuleCheck } from './store.js';
import type { LessonsState, Rule } from './state.js';

// What the rules achieved: how often each was applied (checked on a change in its scope) and
// broken, and the rejections that repeat its evidence, before and after a person accepted it.

export interface RuleFigure {
  rule: string;
  /** Times a reviewer or judge checked it on a change in its scope, and found it broken. */
  applied: number;
  broken: number;
  /** Rejections it rests on (before it), and rejections after it of work found breaking it. */
  rejectionsBefore: number;
  rejectionsAfter: number;
}

/** The rejections after `rule` was accepted of items a check found breaking it. */
function repeats(rule: Rule, checks: readonly RuleCheck[], lines: readonly LedgerLine[]) {
  const since = rule.decided?.at ?? '';
  const breakers = new Set(checks.filter((c) => c.rule === rule.id && !c.held).map((c) => c.item));
  return lines.filter((l) => l.decision === 'rejected' && l.at >= since && breakers.has(l.item));
}

/** Each rule a person accepted (in force or retired since), with what it achieved. */
export function ruleFigures(
  state: LessonsState,
  checks: readonly RuleCheck[],
  ledger: readonly LedgerLine[],
): RuleFigure[] {
  const lines = standingLines(ledger);
  const rejections = new Set(lines.filter((l) => l.decision === 'rejected').map((l) => l.id));
  return state.rules
    .filter((rule) => rule.status === 'accepted' || rule.status === 'retired')
    .map((rule) => {
      const of = checks.filter((c) => c.rule === rule.id);
      const evidence = state.lessons.filter((l) => rule.evidence.includes(l.id));
      return {
        rule: rule.id,
        applied: of.length,
        broken: of.filter((c) => !c.held).length,
        rejectionsBefore: evidence.filter((l) => l.decisions.some((d) => rejections.has(d))).length,
        rejectionsAfter: repeats(rule, checks, lines).length,
      };
    });
}

/** The rules' figures of one night (a UTC day). */
export interface RuleNight {
  applied: number;
  broken: number;
  /** Rejections that repeat an accepted rule's evidence (work found breaking it). */
  repeatedRejections: number;
}

/** The rules' figures night over night, since `since`. */
export function ruleNights(
  state: LessonsState,
  checks: readonly RuleCheck[],
  ledger: readonly LedgerLine[],
  since: number | undefined,
): Map<string, RuleNight> {
  const nights = new Map<string, RuleNight>();
  const night = (at: string) => {
    const day = at.slice(0, 10);
    const found = nights.get(day) ?? { applied: 0, broken: 0, repeatedRejections: 0 };
    nights.set(day, found);
    return found;
  };
  const after = (at: string) => since === undefined || Date.parse(at) >= since;
  for (const check of checks.filter((c) => after(c.at))) {
    const of = night(check.at);
    of.applied++;
    if (!check.held) of.broken++;
  }
  const lines = standingLines(ledger);
  const counted = new Set<string>();
  for (const rule of state.rules.filter((r) => r.decided !== undefined && r.status !== 'rejected'))
    for (const line of repeats(rule, checks, lines))
      if (after(line.at) && !counted.has(line.id)) {
        counted.add(line.id);
        night(line.at).repeatedRejections++;
      }
  return nights;
}
