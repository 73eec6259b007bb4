import { randomUUID } from 'node:crypto';
import type { Outcome } from '../agent/outcome.js';
import { sessionFiles } from '../archive/paths.js';
import { candidatesAfterFailure } from '../candidates/roster.js';
import type { CliName } from '../config/cli-names.js';
import type { Item } from '../queue/item.js';
import type { Answered, ItemWork, SessionAsk, Sessions } from '../stage/sessions.js';
import { fleetDailyLeft } from './fleet-cap.js';
import { holdCli } from './holds.js';
import type { SessionHostContext } from './host.js';
import { ASKED, AUTHOR } from './kinds.js';
import { prepareAnswering } from './prepare-answering.js';
import { resolveSession } from './prepare.js';
import type { RunSpend } from './run-spend.js';
import { SessionRun, type SessionRequest } from './session-run.js';

/**
 * The one place an agent session runs, whoever needs it: a worker hands it an item's author, a
 * stage asks it for a session of the kind it declares (a reviewer). Each is prepared, spawned,
 * supervised, classified and archived the same way, its cost in the run's budget.
 */
export class SessionHost implements Sessions {
  constructor(
    /** What it is given of the run, made once (the fleet's daily cap is read through it too). */
    readonly ctx: SessionHostContext,
    /** The run's spend, as the sessions a stage asks for take part in it. */
    private readonly spend: RunSpend,
  ) {}

  /** An author's session of a claimed, prepared item; `settle` moves its item after it. */
  author(request: Omit<SessionRequest, 'kind'>) {
    return new SessionRun(this.ctx, { ...request, kind: AUTHOR }).run();
  }

  async workOf(item: Item): Promise<ItemWork> {
    const { ctx } = this;
    const resolved = await resolveSession({ workspace: ctx.workspace, item, cache: ctx.files });
    if ('reason' in resolved) throw new Error(resolved.reason);
    return {
      workDir: resolved.settings.workDir,
      layers: resolved.layers,
      sandbox: resolved.work.sandbox,
      environment: resolved.work.environment,
      land: resolved.work.land !== undefined,
      forge: resolved.work.forge !== undefined,
      review: resolved.work.review,
      cli: resolved.settings.cli,
      fallbackClis: resolved.fallback.clis.map((choice) => choice.cli),
      ...(resolved.work.candidates?.maxCostUsd === undefined
        ? {}
        : { candidatesMaxCostUsd: resolved.work.candidates.maxCostUsd }),
      candidatesOnFailure: candidatesAfterFailure(
        item,
        { work: resolved.work, checkout: item.branch, settings: resolved.settings },
        0,
      ),
    };
  }

  async ask<A>(item: Item, ask: SessionAsk<A>): Promise<Answered<A>> {
    const { ctx } = this;
    const sessionId = randomUUID();
    const runLeft = this.spend.left();
    const budgetLeftUsd =
      ask.maxCostUsd === undefined || runLeft === undefined
        ? (ask.maxCostUsd ?? runLeft)
        : Math.min(ask.maxCostUsd, runLeft);
    const none = (outcome: string, reason: string, retryAt?: number): Answered<A> => ({
      kind: 'unanswered',
      outcome,
      reason,
      costUsd: 0,
      retryAt,
    });
    // The run's cost limit is reached: no session is paid for, and nothing is answered.
    if (runLeft !== undefined && runLeft <= 0)
      return none('cost_limit', "the run's cost limit is reached");
    // Its CLI held back (a usage limit it reported, an author's or an asked session's).
    const held = ctx.cliHolds.of(ask.cli, ctx.clock.now());
    if (held !== undefined)
      return none(
        'held',
        `${ask.cli} is held back: ${held.reason}`,
        Number.isFinite(held.until) ? held.until : undefined,
      );
    // The fleet's daily cap holds for every session alike.
    const daily = await fleetDailyLeft(ctx);
    if (daily !== undefined && daily.left <= 0) return none('cost_limit', daily.reason);
    const files = sessionFiles(ctx.workspace.paths.sessions, sessionId);
    const prepared = prepareAnswering({
      ...ask,
      workspace: ctx.workspace,
      item,
      identity: { sessionId, iteration: 0, files },
      parentEnv: ctx.parentEnv,
      budgetLeftUsd,
    });
    if ('reason' in prepared) return none('rejected', ctx.redactor.redact(prepared.reason));
    const ran = await new SessionRun(ctx, {
      kind: ASKED,
      item,
      iteration: 0,
      sessionId,
      files,
      prepared,
      queued: 0,
      spent: (costUsd) => this.spend.spent(costUsd),
      settle: () => Promise.resolve(undefined),
    }).run();
    if (ran.kind !== 'ran') return none(ran.kind, ran.reason);
    const { outcome, costUsd } = ran;
    const unanswered = (kind: string, reason: string, retryAt?: number): Answered<A> => ({
      kind: 'unanswered',
      outcome: kind,
      reason,
      sessionId,
      costUsd,
      retryAt,
    });
    if (outcome.kind === 'rate_limited')
      return unanswered(outcome.kind, outcome.message, this.holdLimited(ask.cli, outcome));
    // A tool refused it (a write) is read-only doing its work: its answer is read all the same.
    if (outcome.kind !== 'success' && outcome.kind !== 'permission_denied')
      return unanswered(outcome.kind, outcome.message);
    const read = ask.kind.read(ran.finalText ?? '', item);
    if (read.kind === 'invalid') return unanswered('invalid', read.reason);
    return { kind: 'answered', value: read.value, sessionId, costUsd };
  }

  /**
   * A usage limit met by an asked session holds its CLI back as an author's does, until the
   * limit resets (a reset not said: the backoff's wait). When it may be asked again.
   */
  private holdLimited(cli: CliName, outcome: Outcome & { kind: 'rate_limited' }): number {
    const { ctx } = this;
    const { run } = ctx.workspace.config;
    const now = ctx.clock.now();
    const reset =
      outcome.waitUntil !== undefined && outcome.waitUntil > now
        ? outcome.waitUntil
        : now + run.rateLimitBackoff * 1000;
    const until = reset + run.limitMargin * 1000;
    holdCli(ctx, cli, { until, reason: outcome.message, kind: 'limit' });
    return until;
  }
}
