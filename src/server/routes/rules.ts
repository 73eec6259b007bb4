import { Hono } from 'hono';
import { InputError } from '../../lib/errors.js';
import { formatIssues } from '../../lib/validation.js';
import { decideRule, retireRule } from '../../lessons/decide.js';
import { readLedger } from '../../queue/ledger.js';
import { rulePages } from '../../workspace/rule-page.js';
import { rulesReport } from '../../workspace/rules-report.js';
import { addressOf } from '../action-log.js';
import type { ProposedRule, RuleDecided, Rules } from '../api-types.js';
import type { ServerContext } from '../context.js';
import { body } from '../request.js';
import { RuleDecisionRequest, RuleParams } from '../schemas.js';

/** A rule's id from its path, or a refusal naming it. */
function ruleIdOf(params: unknown): string {
  const parsed = RuleParams.safeParse(params);
  if (!parsed.success) throw new InputError(formatIssues('the rule id', parsed.error), 'id');
  return parsed.data.id.toUpperCase();
}

const SAID = {
  accepted: 'accepted: every later session is given it, and the reviewer checks it',
  rejected: 'rejected: it takes no effect, and is not proposed again',
  retired: 'retired: it is no longer given or checked',
} as const;

/**
 * `/rules`: the rules proposed from the lessons (each with its evidence) and those accepted with
 * their figures; a person's accept, reject or retire, as `ralph rules accept|reject|rm`.
 */
export function rulesRoutes(ctx: ServerContext): Hono {
  const app = new Hono();

  app.get('/rules', async (c) => {
    const items = await ctx.queue.list();
    const pages = await rulePages(ctx.workspace, items, (rule) => rule.status === 'proposed');
    const proposed = pages.map((page): ProposedRule => {
      const { rule } = page;
      return {
        id: rule.id,
        text: rule.text,
        kind: rule.kind,
        scope: rule.scope,
        proposal: rule.proposal,
        proposedAt: rule.proposedAt,
        ...(page.proposal === undefined ? {} : { cli: page.proposal.cli }),
        evidence: page.evidence.map(({ lesson, items: of }) => ({
          id: lesson.id,
          kind: lesson.kind,
          text: lesson.text,
          decisions: lesson.decisions,
          items: of,
        })),
      };
    });
    const { rules } = await rulesReport(
      ctx.workspace,
      { ledger: await readLedger(ctx.workspace), items },
      undefined,
    );
    const answer: Rules = { proposed, rules };
    return c.json(ctx.redactor.redactValue(answer));
  });

  for (const [verb, kind] of [
    ['accept', 'accepted'],
    ['reject', 'rejected'],
    ['retire', 'retired'],
  ] as const)
    app.post(`/rules/:id/${verb}`, async (c) => {
      const id = ruleIdOf(c.req.param());
      const { note } = await body(c, RuleDecisionRequest);
      const by = `dashboard (${addressOf(c)})`;
      const now = Date.now();
      const { rule, change } =
        kind === 'retired'
          ? await retireRule(ctx.workspace, ctx.queue, { rule: id, by, note }, now)
          : await decideRule(ctx.workspace, ctx.queue, { rule: id, kind, by, note }, now);
      ctx.logAction(c, `rule ${verb}`, [id]);
      const answer: RuleDecided = {
        rule: rule.id,
        status: rule.status,
        text: `${rule.id} ${SAID[kind]}${change === undefined ? '' : `; ${change.id} carries it into the repository (the running night, or the next ralph run, lands it)`}`,
      };
      return c.json(ctx.redactor.redactValue(answer));
    });
  return app;
}
