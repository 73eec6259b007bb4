import { git } from '../git/git.js';
import { checksFor, ruleCriterion, rulesInForceNow } from '../lessons/rules.js';
import { recordRuleChecks } from '../lessons/store.js';
import type { Rule } from '../lessons/state.js';
import type { StageContext } from '../stage/context.js';
import type { JudgeVerdict } from './judge.js';

// The rules in force that the judge checks of the candidates' changes, as criteria after the
// item's own, and what it found of each recorded as a reviewer's checks are.

/** The rules in force whose scope any of the changes from `base` to `heads` touches. */
export async function rulesToJudge(
  ctx: StageContext,
  repo: string,
  base: string,
  heads: readonly string[],
): Promise<{ rules: readonly Rule[]; criteria: string[] }> {
  const files = new Set<string>();
  for (const head of heads)
    for (const file of (await git(repo, ['diff', '--name-only', `${base}...${head}`])).split('\n'))
      if (file !== '') files.add(file);
  const { rules } = checksFor(await rulesInForceNow(ctx.workspace, ctx.queue), [...files]);
  return { rules, criteria: rules.map(ruleCriterion) };
}

/** What the judge found of each rule (criteria past the item's own `criteria`), per candidate. */
export async function recordJudgedRules(
  ctx: StageContext,
  of: { item: string; session: string; at: string },
  verdict: JudgeVerdict,
  rules: readonly Rule[],
  criteria: number,
): Promise<void> {
  if (rules.length === 0) return;
  await recordRuleChecks(
    ctx.workspace,
    verdict.candidates.flatMap((candidate) =>
      candidate.criteria
        .filter((c) => c.id > criteria && rules[c.id - criteria - 1] !== undefined)
        .map((c) => ({
          rule: rules[c.id - criteria - 1]!.id,
          ...of,
          by: 'judge' as const,
          held: c.verdict !== 'FAIL',
        })),
    ),
  );
}
