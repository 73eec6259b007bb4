import type { CliName } from '../config/cli-names.js';
import { ItemSchema, type Item } from '../queue/item.js';
import { readLedger } from '../queue/ledger.js';
import type { StageContext } from '../stage/context.js';
import { addLessons, lessonsOfLedger } from './gather.js';
import { proposalRequest, proposerOf, refusalOf } from './proposer.js';
import { changeLessons } from './store.js';
import { newLessons, nextId, type Lesson, type LessonsState, type Proposal } from './state.js';

// A proposal: the new lessons given to a read-only session of the proposer's CLI, its answer
// checked as a verdict is, and the rules it holds put to a person. Nothing of it is in force.

/** What a proposal came to: the one made, or why none was. */
export type Proposed = { kind: 'proposed'; proposal: Proposal } | { kind: 'none'; why: string };

/** The lessons of the person's decisions gathered into the state; the state after. */
export async function gatherDecisions(
  ctx: Pick<StageContext, 'workspace' | 'queue'>,
): Promise<LessonsState> {
  const found = lessonsOfLedger(await readLedger(ctx.workspace), await ctx.queue.list());
  return changeLessons(ctx.workspace, (state) => {
    addLessons(state, found);
    return { state, answer: state };
  });
}

/** Why no proposal is due now (`force`: a person asked, only new lessons are needed). */
function notDue(state: LessonsState, fresh: readonly Lesson[], ctx: StageContext, force: boolean) {
  const settings = ctx.workspace.config.lessons;
  if (fresh.length === 0) return 'no new lessons have gathered since the last proposal';
  if (force) return undefined;
  if (!settings.enabled) return 'lessons are off (lessons.enabled)';
  const today = new Date(ctx.clock.now()).toISOString().slice(0, 10);
  if (state.proposals.some((p) => p.at.startsWith(today))) return 'a proposal was made today';
  if (fresh.length < settings.minEvidence)
    return `${fresh.length} new lesson(s), fewer than lessons.minEvidence (${settings.minEvidence})`;
  return undefined;
}

/** The item a proposer's session is of: none of the queue's, named for its proposal. */
function subjectOf(id: string): Item {
  return ItemSchema.parse({ id: `lessons-${id}`, title: `Rules from lessons (${id})` });
}

/** The proposer's CLI: `lessons.cli`, else the reviewer's, else the workspace's. */
function proposerCli(ctx: StageContext): CliName {
  const { config } = ctx.workspace;
  return config.lessons.cli ?? config.review.cli ?? config.defaults.cli;
}

/**
 * Proposes rules from the new lessons when enough have gathered and none was proposed today, or
 * at once when `force` (a person asked). A proposer that fails, or an answer that fails its
 * check, proposes nothing: the proposal keeps why, and its lessons wait for the next one.
 */
export async function propose(ctx: StageContext, force: boolean): Promise<Proposed> {
  const state = await gatherDecisions(ctx);
  const fresh = newLessons(state);
  const { workspace } = ctx;
  const settings = workspace.config.lessons;
  const why = notDue(state, fresh, ctx, force);
  if (why !== undefined) return { kind: 'none', why };
  const id = nextId('P', state.proposals);
  const subject = subjectOf(id);
  const work = await ctx.sessions.workOf(subject);
  const cli = proposerCli(ctx);
  const end = await ctx.sessions.ask(subject, {
    kind: proposerOf(fresh),
    cli,
    model: settings.cli === undefined ? undefined : settings.model,
    // What people wrote and agents found may hold a secret a session printed: masked.
    prompt: ctx.redactor.redact(proposalRequest(fresh, state.rules)),
    workDir: work.workDir,
    worktree: work.workDir,
    timeoutSeconds: settings.timeout,
    sandbox: work.sandbox,
    maxCostUsd: settings.maxCostUsd,
  });
  const at = new Date(ctx.clock.now()).toISOString();
  const proposal = await changeLessons(workspace, (now) => {
    const made: Proposal = {
      id: nextId('P', now.proposals),
      at,
      cli,
      ...(end.sessionId === undefined ? {} : { session: end.sessionId }),
      costUsd: end.costUsd,
      lessons: fresh.map((l) => l.id),
      rules: [],
      dropped: [],
    };
    if (end.kind === 'unanswered') {
      const reason = end.outcome === 'invalid' ? end.reason : `${end.outcome}: ${end.reason}`;
      made.failure = ctx.redactor.redact(`the proposer (${cli}) proposed nothing: ${reason}`);
    } else {
      for (const rule of end.value.rules) {
        const refusal = refusalOf(rule, fresh, now.rules);
        if (refusal !== undefined) {
          made.dropped.push({ text: ctx.redactor.redact(rule.text), reason: refusal });
          continue;
        }
        const ruleId = nextId('R', now.rules);
        now.rules.push({
          id: ruleId,
          text: ctx.redactor.redact(rule.text),
          kind: rule.kind,
          scope: rule.scope,
          evidence: rule.evidence,
          proposal: made.id,
          status: 'proposed',
          proposedAt: at,
        });
        made.rules.push(ruleId);
      }
      const given = new Set(made.lessons);
      for (const lesson of now.lessons) if (given.has(lesson.id)) lesson.proposal = made.id;
    }
    now.proposals.push(made);
    return { state: now, answer: made };
  });
  return { kind: 'proposed', proposal };
}
