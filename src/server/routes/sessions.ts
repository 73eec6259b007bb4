import fs from 'node:fs';
import { Readable } from 'node:stream';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { sessionFiles } from '../../archive/paths.js';
import { InputError, NotFoundError } from '../../lib/errors.js';
import { pathExists, readIfExists } from '../../lib/fs.js';
import { redactingStream } from '../../lib/redact-stream.js';
import {
  sessionDecoder,
  checkSessionStatus,
  newestFirst,
  parseSince,
  readRecord,
  sessionMayGrow,
  withRunning,
} from '../../workspace/sessions.js';
import type { ServerContext } from '../context.js';
import { indexOf } from '../index-cache.js';
import { keepStreaming } from '../live-stream.js';
import type { SessionEvents, Sessions } from '../api-types.js';
import { query } from '../request.js';
import { SessionEventsQuery, SessionParams, SessionsQuery, StreamOffset } from '../schemas.js';
import { SessionStream } from '../session-stream.js';
import type { StreamDecoder } from '../../stream/decoder.js';
import type { Redactor } from '../../lib/redact.js';

/** Bytes of a stream one page of `/sessions/:id/events` reads. */
const PAGE_BYTES = 512 * 1024;

/** `/sessions`: the archive, listed from the index and read from each session's files. */
export function sessionRoutes(ctx: ServerContext): Hono {
  const app = new Hono();
  const { paths } = ctx.workspace;

  /** The files of a session that exists; 400 for a malformed id, 404 for an unknown one. */
  const sessionOf = async (c: Context) => {
    const parsed = SessionParams.shape.id.safeParse(c.req.param('id'));
    if (!parsed.success) throw new InputError('id: not a session id (a UUID)', 'id');
    const files = sessionFiles(paths.sessions, parsed.data);
    if (!(await pathExists(files.stdout)) && !(await pathExists(files.record))) {
      // A fleet's session of another machine: its archive stayed there.
      const elsewhere = (await indexOf(ctx)).entries.find((e) => e.sessionId === parsed.data);
      throw new NotFoundError(
        elsewhere?.host === undefined
          ? `no session ${parsed.data}`
          : `session ${parsed.data} ran on ${elsewhere.host}; its archive is there, ${elsewhere.archive ?? 'in that workspace'}`,
      );
    }
    const record = await readRecord(ctx.workspace, parsed.data).catch(() => undefined);
    return {
      id: parsed.data,
      files,
      decoder: await sessionDecoder(ctx.workspace, parsed.data),
      // What the session's agent had is masked too, whatever secrets the server's shell holds.
      redactor: ctx.redactor.withFingerprints(record?.secrets),
    };
  };

  app.get('/sessions', async (c) => {
    const q = query(c, SessionsQuery);
    const since = q.since === undefined ? undefined : parseSince(q.since, Date.now(), 'since');
    if (q.status !== undefined) checkSessionStatus(q.status, 'status');
    const { entries, skipped } = await indexOf(ctx);
    const shown = newestFirst(await withRunning(ctx.workspace, entries), since).filter(
      (e) =>
        (q.item === undefined || e.itemId === q.item) &&
        (q.status === undefined || e.status === q.status || e.outcome === q.status),
    );
    return c.json(
      ctx.redactor.redactValue({
        total: shown.length,
        offset: q.offset,
        limit: q.limit,
        skipped,
        sessions: shown.slice(q.offset, q.offset + q.limit),
      } satisfies Sessions),
    );
  });

  app.get('/sessions/:id', async (c) => {
    const { id } = await sessionOf(c);
    return c.json(ctx.redactor.redactValue(await readRecord(ctx.workspace, id)));
  });

  // The quality gates' commands and output of one session (git mode and gates), redacted.
  app.get('/sessions/:id/gates', async (c) => {
    const { files, redactor } = await sessionOf(c);
    const text = await readIfExists(files.gates);
    if (text === undefined) throw new NotFoundError('this session ran no gates');
    return c.text(redactor.redact(text));
  });

  app.get('/sessions/:id/raw', async (c) => {
    const { files, redactor } = await sessionOf(c);
    const source = fs.createReadStream(files.stdout);
    const redacted = source.pipe(redactingStream(redactor));
    source.on('error', (error) => redacted.destroy(error));
    return new Response(Readable.toWeb(redacted) as ReadableStream, {
      headers: { 'content-type': 'application/x-ndjson; charset=utf-8' },
    });
  });

  app.get('/sessions/:id/events', async (c) => {
    const { id, files, decoder, redactor } = await sessionOf(c);
    const q = query(c, SessionEventsQuery);
    if (q.follow === '1')
      return follow(c, ctx, id, { decoder, redactor }, c.req.header('last-event-id'));
    const stream = new SessionStream(files.stdout, q.after, redactor, decoder);
    try {
      const ended = await pathExists(files.record);
      const entries = await stream.next(PAGE_BYTES);
      const done = ended && (await stream.atEnd());
      const tail = done ? stream.finish() : [];
      return c.json({
        events: [...entries, ...tail].map(({ event, end }) => ({ offset: end, ...event })),
        next: stream.position,
        done,
      } satisfies SessionEvents);
    } finally {
      await stream.close();
    }
  });

  return app;
}

/**
 * One session followed like `ralph logs --follow`: its events from the start (or the offset a
 * reconnecting client names), then as the agent writes them, until the final record is there.
 */
function follow(
  c: Context,
  ctx: ServerContext,
  sessionId: string,
  { decoder, redactor }: { decoder: StreamDecoder; redactor: Redactor },
  lastEventId: string | undefined,
) {
  const from = StreamOffset.safeParse(lastEventId ?? 0);
  const files = sessionFiles(ctx.workspace.paths.sessions, sessionId);
  return streamSSE(c, async (sse) => {
    const stream = new SessionStream(files.stdout, from.success ? from.data : 0, redactor, decoder);
    await keepStreaming(sse, ctx.changes, ctx.heartbeatMs, async (send) => {
      // The final record is written last: once it is there, the stream is whole; so is that
      // of a session whose runner and agent both died.
      const ended = !(await sessionMayGrow(ctx.workspace, sessionId));
      const entries = await stream.next();
      if (ended) entries.push(...stream.finish());
      for (const { event, end } of entries)
        await send({ id: String(end), event: 'stream', data: JSON.stringify(event) });
      if (!ended) return 'more';
      await send({ event: 'end', data: '{}' });
      return 'over';
    });
    await stream.close();
  });
}
