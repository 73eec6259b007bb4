import path from 'node:path';
import { which } from '../lib/which.js';
import { commandOf } from '../agent/clis/index.js';
import { sessionFiles } from '../archive/paths.js';
import { SessionRecordSchema } from '../archive/record.js';
import type { CliName } from '../config/cli-names.js';
import { itemWorktree } from '../config/workspace.js';
import { git } from '../git/git.js';
import { repositoryRoot } from '../git/worktree.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { readIfExists } from '../lib/fs.js';
import { PROMPT_CAP_CHARS } from '../prompt/assemble.js';
import type { Item, ItemVerdict } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { ItemWork } from '../stage/sessions.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { reviewOrder } from '../queue/select.js';
import type { ReviewSettings } from './config-schema.js';
import { reviewRequest, type ReviewSubject } from './request.js';
import { capDiff } from '../git/capped-diff.js';
import type { Verdict } from './verdict.js';
import { reviewerOf } from './reviewer.js';
import { checksFor, ruleCriterion, rulesInForceNow, type RuleChecks } from '../lessons/rules.js';
import { recordRuleChecks } from '../lessons/store.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The wait before a review that failed is tried again; it doubles with each failure. */
const REVIEW_RETRY_BASE_MS = 60_000;
const REVIEW_RETRY_CAP_MS = 30 * 60_000;

/** Room in the prompt for the reviewer's identity and ralph's framing around the request. */
const PROMPT_FRAME_CHARS = 2_000;

/** The review stage: the items whose gates passed wait as `reviewing` for a reviewer's verdict. */
export const reviews: StageFactory = (ctx) => new Reviews(ctx);

/**
 * Reviews one item at a time, in the order they finished: a reviewer (another CLI by default)
 * reads the item's worktree, given its task, criteria, diff, gates and its author's last word,
 * and answers a verdict ralph checks. Approved, the item goes on (to land, to its pull request,
 * or done); changes asked for, back to its author with the findings; anything else (an error, a
 * timeout, a limit, an answer that is no valid verdict) leaves it unreviewed, looked at again
 * later: a failing reviewer never lets a change through.
 */
class Reviews implements StageDeclaration {
  readonly name = 'review';
  readonly on = true;
  readonly tends = { status: 'reviewing', order: reviewOrder } as const;
  readonly width = 1;
  readonly pauses = true;
  /** An item whose review failed is unreviewed, not failed: it waits for a reviewer again. */
  readonly unmoved = 'unreviewed';
  readonly awaits = 'due';
  /** Each work dir's repository: read once a run. */
  private readonly repositories = new Map<string, string>();

  constructor(private readonly ctx: StageContext) {}

  async step(item: Item): Promise<Stepped> {
    const reviewed = await this.review(item);
    if (reviewed === 'stopped') return { kind: 'waiting' };
    return reviewed === 'unreviewed' ? { kind: 'kept' } : { kind: 'moved', item: reviewed };
  }

  /** Reviews one item and records the verdict; the item as it is after, if it moved. */
  private async review(item: Item): Promise<Item | undefined | 'unreviewed' | 'stopped'> {
    const { ctx } = this;
    const settings = ctx.workspace.config.review;
    let cli: CliName | undefined;
    try {
      const work = await ctx.sessions.workOf(item);
      cli = this.reviewerOf(settings, work);
      const subject = await this.subjectOf(item, work);
      const frame = reviewRequest(subject.of, { text: '', leftOut: [] }, 0).length;
      const cap = Math.min(settings.maxDiffChars, PROMPT_CAP_CHARS - PROMPT_FRAME_CHARS - frame);
      const capped = capDiff(subject.of.diff, cap);
      ctx.events.info('review_started', {
        item: item.id,
        cli,
        diffChars: capped.text.length,
        leftOut: capped.leftOut.length,
      });
      const end = await ctx.sessions.ask(item, {
        kind: reviewerOf([...subject.of.criteria, ...subject.of.rules]),
        cli,
        model: settings.cli === undefined ? undefined : settings.model,
        prompt: reviewRequest(subject.of, capped, cap),
        workDir: subject.workDir,
        worktree: subject.worktree,
        timeoutSeconds: settings.timeout,
        sandbox: work.sandbox,
      });
      // Stopped with the run: it waits for the next one, nothing held against it.
      if (end.kind === 'unanswered' && ctx.stopped()) return 'stopped';
      if (end.kind === 'unanswered') {
        const why = end.outcome === 'invalid' ? end.reason : `${end.outcome}: ${end.reason}`;
        return await this.leaveUnreviewed(item, cli, why, end);
      }
      return await this.record(item, work, {
        ...stored(end.value, item.criteria?.length ?? 0, subject.checks),
        cli,
        session: end.sessionId,
        head: subject.head,
        costUsd: end.costUsd,
        at: new Date(ctx.clock.now()).toISOString(),
      });
    } catch (error) {
      // Not the reviewer's answer (its worktree gone, git failing): unreviewed all the same.
      return this.leaveUnreviewed(item, cli ?? 'none', messageOf(error));
    }
  }

  /**
   * The reviewer's CLI: the one `review.cli` names, else the first of the author's fallbacks
   * that is another CLI and found here, else the author's own (in a fresh session).
   */
  private reviewerOf(settings: ReviewSettings, work: ItemWork): CliName {
    if (settings.cli !== undefined) return settings.cli;
    const { config } = this.ctx.workspace;
    const found = (cli: CliName) =>
      which(commandOf(config, cli)[0] ?? cli, this.ctx.parentEnv.PATH) !== undefined;
    return work.fallbackClis.find((cli) => cli !== work.cli && found(cli)) ?? work.cli;
  }

  /** What the reviewer is given, and where it reads the work. */
  private async subjectOf(
    item: Item,
    work: ItemWork,
  ): Promise<{
    of: ReviewSubject;
    checks: RuleChecks;
    workDir: string;
    worktree: string;
    head: string;
  }> {
    const { workspace } = this.ctx;
    const repo = this.repositories.get(work.workDir) ?? (await repositoryRoot(work.workDir));
    if (repo === undefined) throw new Error(`${work.workDir} is in no git repository`);
    this.repositories.set(work.workDir, repo);
    if (item.branch === undefined || item.baseCommit === undefined)
      throw new Error('it has no branch to review');
    const worktree = itemWorktree(workspace.paths, item.id);
    const last = await lastSession(workspace.paths.sessions, item);
    // The commit ralph recorded as its work (its author's session left the branch there), else
    // the branch's as git has it now: the verdict is of that commit's diff, and only that
    // commit lands as approved.
    const head =
      item.head ??
      last?.git?.commits.at(-1)?.sha ??
      (await git(repo, ['rev-parse', '--verify', `${item.branch}^{commit}`])).trim();
    const diff = await git(repo, ['diff', '--no-color', `${item.baseCommit}...${head}`]);
    const files = (await git(repo, ['diff', '--name-only', `${item.baseCommit}...${head}`]))
      .split('\n')
      .filter((file) => file !== '');
    // The rules a person accepted whose scope the change touches: checked as criteria.
    const checks = checksFor(await rulesInForceNow(workspace, this.ctx.queue), files);
    const body =
      item.bodyFile === undefined
        ? (item.body ?? '')
        : ((await readIfExists(path.resolve(workspace.root, item.bodyFile))) ?? '');
    return {
      of: {
        title: item.title,
        body,
        criteria: item.criteria ?? [],
        diff,
        gates: last?.gates ?? [],
        authorMessage: last?.result?.text ?? '',
        rules: checks.rules.map(ruleCriterion),
        dismissed: checks.dismissed.map((rule) => rule.text),
      },
      checks,
      workDir: path.join(worktree, path.relative(repo, work.workDir)),
      worktree,
      head,
    };
  }

  /** A valid verdict recorded: the item goes on, or back to its author. */
  private async record(
    item: Item,
    work: ItemWork,
    verdict: ItemVerdict,
  ): Promise<Item | undefined> {
    const { ctx } = this;
    const now = ctx.clock.now();
    await ctx.persistently(`recording the rules the review of ${item.id} checked`, () =>
      recordRuleChecks(
        ctx.workspace,
        (verdict.rules ?? []).map((rule) => ({
          rule: rule.rule,
          item: item.id,
          session: verdict.session,
          by: 'reviewer' as const,
          held: rule.verdict !== 'FAIL',
          at: verdict.at,
        })),
      ),
    );
    const settings = ctx.workspace.config.review;
    const applied = await ctx.persistently(`recording the review of ${item.id}`, () =>
      ctx.queue.apply(
        item.id,
        verdict.overall === 'approve'
          ? {
              kind: 'review_approved',
              verdict,
              then: { land: work.land, pullRequest: work.forge },
              now,
            }
          : {
              kind: 'review_changes_requested',
              verdict,
              findings: ctx.redactor.redact(findingsText(item, verdict)),
              maxRounds: settings.maxRounds,
              ...(work.candidatesOnFailure === undefined
                ? {}
                : { candidates: work.candidatesOnFailure }),
              now,
            },
      ),
    );
    const after = applied.kind === 'applied' ? applied.item : undefined;
    ctx.events.info('reviewed', {
      item: item.id,
      cli: verdict.cli,
      session: verdict.session,
      overall: verdict.overall,
      costUsd: verdict.costUsd,
      itemStatus: after?.status,
    });
    return after;
  }

  /**
   * No valid verdict: the item stays unreviewed (never approved), its next look (with a backoff
   * that grows with each failure) stored with it, so that a restart waits as this run would.
   */
  private async leaveUnreviewed(
    item: Item,
    cli: string,
    why: string,
    end?: { sessionId?: string; costUsd: number; retryAt?: number },
  ): Promise<'unreviewed'> {
    const { ctx } = this;
    const looks = (item.lookAgain?.looks ?? 0) + 1;
    const now = ctx.clock.now();
    // Not before its CLI's usage limit resets, whatever the backoff says.
    const at = Math.max(
      now + exponentialBackoffMs(looks, REVIEW_RETRY_BASE_MS, REVIEW_RETRY_CAP_MS),
      end?.retryAt ?? 0,
    );
    const reason = ctx.redactor.redact(`review by ${cli} failed: ${why}`);
    ctx.events.warn('review_failed', {
      item: item.id,
      cli,
      session: end?.sessionId,
      reason,
      retryAt: new Date(at).toISOString(),
    });
    await ctx.persistently(`recording that ${item.id} is unreviewed`, () =>
      ctx.queue.apply(item.id, {
        kind: 'review_failed',
        reason,
        costUsd: end?.costUsd ?? 0,
        at,
        looks,
        now,
      }),
    );
    return 'unreviewed';
  }
}

/**
 * The verdict as the item keeps it: its criteria the item's own (the first `criteria`), the
 * rest the rules it checked, by their ids.
 */
function stored(
  verdict: Verdict,
  criteria: number,
  checks: RuleChecks,
): Pick<ItemVerdict, 'overall' | 'summary' | 'criteria' | 'findings' | 'rules'> {
  const rules = verdict.criteria
    .filter((c) => c.id > criteria)
    .map((c) => ({
      rule: checks.rules[c.id - criteria - 1]?.id ?? '',
      verdict: c.verdict,
      evidence: c.evidence,
    }));
  return {
    overall: verdict.overall,
    summary: verdict.summary,
    criteria: verdict.criteria.filter((c) => c.id <= criteria),
    findings: verdict.findings,
    ...(rules.length === 0 ? {} : { rules }),
  };
}

/**
 * What the author is told of a review that asked for changes: the failed criteria and the
 * blocking and major findings (a minor one is the author's to weigh, not a reason to go back).
 */
export function findingsText(item: Item, verdict: ItemVerdict): string {
  const criteria = item.criteria ?? [];
  const failed = verdict.criteria
    .filter((c) => c.verdict === 'FAIL')
    .map((c) => `- ${c.id}. ${criteria[c.id - 1] ?? ''}\n  ${c.evidence}`);
  const findings = verdict.findings
    .filter((f) => f.severity !== 'minor')
    .map((f) => `- ${f.severity}, ${f.place}: ${f.finding}`);
  const broken = (verdict.rules ?? [])
    .filter((r) => r.verdict === 'FAIL')
    .map((r) => `- ${r.rule}: ${r.evidence}`);
  return [
    `A reviewer (${verdict.cli}) asked for changes${verdict.summary === undefined ? '.' : `: ${verdict.summary}`}`,
    ...(failed.length === 0 ? [] : ['Acceptance criteria it found failing:', ...failed]),
    ...(broken.length === 0 ? [] : ['Rules of this project it found broken:', ...broken]),
    ...(findings.length === 0 ? [] : ['Its findings:', ...findings]),
  ].join('\n');
}

/** The record of the item's last session that left one: its gates and its last message. */
async function lastSession(sessions: string, item: Item) {
  const id = item.sessions.at(-1);
  if (id === undefined) return undefined;
  const text = await readIfExists(sessionFiles(sessions, id).record).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = SessionRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
