import { VERSION } from '../lib/version.js';
import { z } from '../lib/zod.js';
import {
  EmptyBody,
  ItemParams,
  ItemsQuery,
  NewItemSchema,
  PauseBody,
  ForceQuery,
  ReportQuery,
  SessionEventsQuery,
  SessionParams,
  SessionsQuery,
} from './schemas.js';

type Schema = z.ZodObject;

interface Operation {
  summary: string;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** A stream of server-sent events rather than JSON. */
  events?: boolean;
}

/** Every route: what it does and the schemas its request is validated with. */
export const ROUTES: Record<string, Record<string, Operation>> = {
  '/health': { get: { summary: 'version, runner, pause, wait, queue counts, running sessions' } },
  '/events': {
    get: {
      summary: 'runner log entries, the running sessions’ parsed streams, status changes',
      events: true,
    },
  },
  '/report': {
    get: { summary: 'outcomes, cost and time per day and per item', query: ReportQuery },
  },
  '/night': {
    get: {
      summary: "the last run's span, outcomes, spend and failures with the agent's last words",
    },
  },
  '/log': { get: { summary: "the runner's latest log entries (state/iteration.log)" } },
  '/pause': { post: { summary: 'pause now, or after the current item', body: PauseBody } },
  '/resume': { post: { summary: 'remove the pause', body: EmptyBody } },
  '/items': {
    get: { summary: 'the queue (task texts left out)', query: ItemsQuery },
    post: { summary: 'add an item, as ralph add', body: NewItemSchema },
  },
  '/items/{id}': {
    get: { summary: 'one item', params: ItemParams },
    delete: { summary: 'remove an item, as ralph rm', params: ItemParams, query: ForceQuery },
  },
  '/items/{id}/diff': {
    get: {
      summary: "the item's branch against its base (git mode), as ralph diff",
      params: ItemParams,
    },
  },
  '/items/{id}/retry': {
    post: {
      summary: 'retry, as ralph retry (force=1: a done item too)',
      params: ItemParams,
      query: ForceQuery,
    },
  },
  '/items/{id}/cancel': {
    post: {
      summary: 'cancel, as ralph cancel (force=1: a done item too)',
      params: ItemParams,
      query: ForceQuery,
    },
  },
  '/sessions': { get: { summary: 'the session index, newest first', query: SessionsQuery } },
  '/sessions/{id}': { get: { summary: 'a session record', params: SessionParams } },
  '/sessions/{id}/events': {
    get: {
      summary: 'a page of parsed events, or (follow=1) server-sent events to the end',
      params: SessionParams,
      query: SessionEventsQuery,
    },
  },
  '/sessions/{id}/raw': {
    get: { summary: 'the stream-json archive, redacted', params: SessionParams },
  },
  '/sessions/{id}/gates': {
    get: { summary: "the quality gates' commands and output, redacted", params: SessionParams },
  },
  '/openapi.json': { get: { summary: 'this description' } },
};

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

function parameters(where: 'path' | 'query', schema: Schema | undefined) {
  if (schema === undefined) return [];
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: where,
    required: where === 'path',
    schema: json(field as z.ZodType),
  }));
}

function operation(op: Operation) {
  return {
    summary: op.summary,
    security: [{ token: [] }],
    parameters: [...parameters('path', op.params), ...parameters('query', op.query)],
    ...(op.body === undefined
      ? {}
      : { requestBody: { content: { 'application/json': { schema: json(op.body) } } } }),
    responses: {
      '200': {
        description: op.events ? 'server-sent events' : 'JSON',
        content: { [op.events ? 'text/event-stream' : 'application/json']: {} },
      },
      default: {
        description: '{"error": "…", "field": "…"} with 400, 401, 403, 404, 409, 413 or 503',
      },
    },
  };
}

/** The API as OpenAPI 3.1, from the same schemas that validate the requests. */
export function openApiDocument(): unknown {
  return {
    openapi: '3.1.0',
    info: { title: 'ralph serve', version: VERSION },
    components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
    paths: Object.fromEntries(
      Object.entries(ROUTES).map(([path, methods]) => [
        path,
        Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(op)])),
      ]),
    ),
  };
}
