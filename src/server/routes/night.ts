import { Outbox } from '../../notify/outbox.js';
import { outboxReport } from '../../notify/report.js';
import { importedReport } from '../../queue/source-text.js';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import {
  egressReport,
  landingReport,
  pullRequestsReport,
  nightOf,
  reportOf,
} from '../../archive/report.js';
import { ControlFiles } from '../../control/files.js';
import { lastPlanOutcome } from '../../forecast/plan-file.js';
import { readTail } from '../../lib/fs.js';
import { VERSION } from '../../lib/version.js';
import { gatherStatus } from '../../workspace/status.js';
import { liveRunner } from '../../control/runner-lock.js';
import { readBudget } from '../../control/budget.js';
import { requestPause } from '../../workspace/pause.js';
import { newestFirst, parseSince, readRecord } from '../../workspace/sessions.js';
import type { ServerContext } from '../context.js';
import { indexOf } from '../index-cache.js';
import { parseCursor } from '../cursor.js';
import { keepStreaming } from '../live-stream.js';
import { NightReader } from '../night-reader.js';
import { decisionReport } from '../../workspace/decide.js';
import { readLedger } from '../../queue/ledger.js';
import { rulesReport } from '../../workspace/rules-report.js';
import { decisionNights } from '../../workspace/decision-nights.js';
import { openApiDocument } from '../openapi.js';
import type {
  Health,
  LogEntries,
  NightReport,
  PauseResult,
  Report,
  ResumeResult,
} from '../api-types.js';
import { body, query } from '../request.js';
import { EmptyBody, PauseBody, ReportQuery } from '../schemas.js';

/**
 * The state of the workspace, cheap enough to ask often: what `ralph status --json` says (less
 * the seconds that change by themselves: a client counts those from the times given).
 */
export async function health(
  ctx: Pick<ServerContext, 'workspace' | 'queue' | 'redactor' | 'readOnly'>,
): Promise<Health> {
  const { running, ...report } = await gatherStatus(ctx.workspace, ctx.queue, Date.now());
  const live = running.map(({ elapsedSeconds: _e, idleSeconds: _i, ...rest }) => rest);
  return ctx.redactor.redactValue({
    version: VERSION,
    readOnly: ctx.readOnly,
    ...report,
    running: live,
  } satisfies Health);
}

/** How much of the end of the runner's log `/log` reads. */
const LOG_TAIL_BYTES = 64 * 1024;

/** Failures the night's summary names (the report has them all). */
const MAX_FAILURES_SHOWN = 20;

/** `GET /night`: the last run at a glance. */
async function nightAnswer(ctx: ServerContext): Promise<NightReport> {
  const { paths } = ctx.workspace;
  const { run } = await readBudget(paths.budget);
  const { entries } = await indexOf(ctx);
  const ofRun =
    run === undefined
      ? undefined
      : entries.filter((e) => Date.parse(e.startedAt) >= Date.parse(run.startedAt));
  const items = ofRun === undefined ? [] : await ctx.queue.list();
  const night = nightOf(entries, run, items);
  const landing =
    ofRun === undefined
      ? undefined
      : landingReport(ofRun, items, ctx.workspace.config.land.enabled);
  const pullRequests = ofRun === undefined ? undefined : pullRequestsReport(ofRun, items);
  const failures = await Promise.all(
    night.failures.slice(0, MAX_FAILURES_SHOWN).map(async (f) => {
      const record = await readRecord(ctx.workspace, f.sessionId).catch(() => undefined);
      return { ...f, lastWords: record?.lastText ?? record?.result?.text };
    }),
  );
  // The plan of this run, not an older one's.
  const planned =
    ofRun === undefined ? undefined : await lastPlanOutcome(paths.plan, ofRun, run?.startedAt);
  const plan =
    planned === undefined ? undefined : { summary: planned.plan.summary, outcome: planned.outcome };
  return ctx.redactor.redactValue({
    ...night,
    failures,
    landing,
    pullRequests,
    plan,
  } satisfies NightReport);
}

/** `/health`, `/events`, `/report`, `/night` and the pause and resume controls. */
export function nightRoutes(ctx: ServerContext): Hono {
  const app = new Hono();
  const { paths } = ctx.workspace;

  app.get('/health', async (c) => c.json(await health(ctx)));

  app.get('/openapi.json', (c) => c.json(openApiDocument()));

  app.get('/report', async (c) => {
    const q = query(c, ReportQuery);
    const since = q.since === undefined ? undefined : parseSince(q.since, Date.now(), 'since');
    const { entries } = await indexOf(ctx);
    const spanned = newestFirst(entries, since).reverse();
    const report = reportOf(spanned);
    const items = await ctx.queue.list();
    const landing = landingReport(spanned, items, ctx.workspace.config.land.enabled);
    const pullRequests = pullRequestsReport(spanned, items);
    const ledger = await readLedger(ctx.workspace);
    const ruled = await rulesReport(ctx.workspace, { ledger, items }, since);
    return c.json(
      ctx.redactor.redactValue({
        since: since === undefined ? undefined : new Date(since).toISOString(),
        ...report,
        landing,
        pullRequests,
        egress: egressReport(spanned),
        imported: importedReport(items, new Set(spanned.map((e) => e.itemId))),
        notifications: await outboxReport(new Outbox(ctx.workspace.paths.outbox), since),
        decisions: decisionReport(ledger, since),
        nights: decisionNights(ledger, items, since, ruled.nights),
        rules: ruled.rules,
      } satisfies Report),
    );
  });

  // The night at a glance: the last run's span, outcomes, spend and failures (with the agent's
  // last words), and the plan it started with, for the top of the dashboard in the morning.
  app.get('/night', async (c) => c.json(await nightAnswer(ctx)));

  // The runner's latest log entries (its waits, backoffs, refusals), for the Live view of a
  // page opened after they were said.
  app.get('/log', async (c) => {
    const { text, cut } = await readTail(paths.iterationLog, LOG_TAIL_BYTES);
    const lines = text.split('\n');
    // The first line of a tail that was cut is a part of one.
    const entries = (cut ? lines.slice(1) : lines).flatMap((line) => {
      try {
        return [JSON.parse(line) as LogEntries['entries'][number]];
      } catch {
        return [];
      }
    });
    return c.json(ctx.redactor.redactValue({ entries } satisfies LogEntries));
  });

  app.post('/pause', async (c) => {
    const { reason, afterCurrent } = await body(c, PauseBody);
    const runner = await liveRunner(paths.runnerLock);
    const when = await requestPause(
      new ControlFiles(paths),
      reason ?? `paused over HTTP at ${new Date().toISOString()}`,
      { afterCurrent: afterCurrent === true, runnerLive: runner !== undefined },
    );
    ctx.logAction(c, 'pause');
    return c.json({ paused: when, runner: runner?.pid ?? null } satisfies PauseResult);
  });

  app.post('/resume', async (c) => {
    await body(c, EmptyBody);
    const reason = await new ControlFiles(paths).resume();
    ctx.logAction(c, 'resume');
    return c.json({
      resumed: reason !== undefined,
      wasPaused: reason ?? null,
    } satisfies ResumeResult);
  });

  app.get('/events', (c) => {
    const from = parseCursor(c.req.header('last-event-id') ?? c.req.query('lastEventId'));
    return streamSSE(c, async (sse) => {
      const reader = await NightReader.at(
        { log: paths.iterationLog, sessions: paths.sessions },
        ctx.redactor,
        from,
      );
      await sse.writeSSE({ event: 'status', data: await ctx.status.current() });
      await keepStreaming(
        sse,
        ctx.changes,
        ctx.heartbeatMs,
        async (send) => {
          for (const event of await reader.next())
            await send({ id: event.id, event: event.type, data: JSON.stringify(event.data) });
          return 'more';
        },
        (send) => ctx.status.subscribe((json) => void send({ event: 'status', data: json })),
      );
      await reader.close();
    });
  });

  return app;
}
