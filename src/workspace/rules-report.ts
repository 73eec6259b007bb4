import type { Workspace } from '../config/workspace.js';
import { ruleFigures, ruleNights, type RuleFigure, type RuleNight } from '../lessons/figures.js';
import { readLessons, readRuleChecks } from '../lessons/store.js';
import type { Rule } from '../lessons/state.js';
import type { LedgerLine } from '../queue/ledger.js';
import type { Item } from '../queue/item.js';
import { rulesInForce } from '../lessons/rules.js';

/** A rule a person accepted, with when, why and what it achieved. */
export type RuleRow = Pick<
  Rule,
  'id' | 'text' | 'kind' | 'scope' | 'status' | 'into' | 'evidence'
> &
  Omit<RuleFigure, 'rule'> & {
    /** Given and checked now: accepted, and in the repository its change landed. */
    inForce: boolean;
    acceptedAt?: string;
    acceptedBy?: string;
    retiredAt?: string;
  };

/** The rules a person accepted with their figures, and the rules' figures night over night. */
export async function rulesReport(
  workspace: Workspace,
  { ledger, items }: { ledger: readonly LedgerLine[]; items: readonly Item[] },
  since: number | undefined,
): Promise<{ rules: RuleRow[]; nights: Map<string, RuleNight> }> {
  const [state, checks] = await Promise.all([readLessons(workspace), readRuleChecks(workspace)]);
  const inForce = new Set(rulesInForce(state, items).map((rule) => rule.id));
  const figures = new Map(ruleFigures(state, checks, ledger).map((f) => [f.rule, f]));
  const rules = state.rules.flatMap((rule): RuleRow[] => {
    const figure = figures.get(rule.id);
    if (figure === undefined) return [];
    const { rule: _, ...counts } = figure;
    return [
      {
        id: rule.id,
        text: rule.text,
        kind: rule.kind,
        scope: rule.scope,
        status: rule.status,
        ...(rule.into === undefined ? {} : { into: rule.into }),
        evidence: rule.evidence,
        ...counts,
        inForce: inForce.has(rule.id),
        ...(rule.decided === undefined
          ? {}
          : { acceptedAt: rule.decided.at, acceptedBy: rule.decided.by }),
        ...(rule.retired === undefined ? {} : { retiredAt: rule.retired.at }),
      },
    ];
  });
  return { rules, nights: ruleNights(state, checks, ledger, since) };
}
