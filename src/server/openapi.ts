import { VERSION } from '../lib/version.js';
import * as z from '../lib/zod.js';
import {
  AcceptRequest,
  EmptyBody,
  ItemParams,
  ItemsQuery,
  NewItemSchema,
  PauseBody,
  ForceQuery,
  StopQuery,
  MessageRequest,
  RejectRequest,
  DeferRequest,
  ReviewQuery,
  ReportQuery,
  RuleDecisionRequest,
  RuleParams,
  SessionEventsQuery,
  SessionParams,
  SessionsQuery,
} from './schemas.js';
import {
  DiffAnswer,
  DecidedAnswer,
  ReviewAnswer,
  ReviewPageAnswer,
  ErrorAnswer,
  HealthAnswer,
  ItemAnswer,
  ItemsAnswer,
  ItemsChangedAnswer,
  MessageSaidAnswer,
  ItemsRemovedAnswer,
  LogAnswer,
  NightAnswer,
  OpenApiAnswer,
  PauseAnswer,
  ReportAnswer,
  ResumeAnswer,
  RuleDecidedAnswer,
  RulesAnswer,
  SessionAnswer,
  SessionEventsAnswer,
  SessionsAnswer,
} from './responses.js';

type Schema = z.ZodObject;

interface Operation {
  summary: string;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** The JSON it answers with. */
  answer?: z.ZodType;
  /** 201 for what it creates. */
  status?: 200 | 201;
  /** Server-sent events (the names of its events), instead of or besides the JSON. */
  events?: string;
  /** Text of another type: the archive's bytes, redacted. */
  text?: 'text/plain' | 'application/x-ndjson';
}

/** Every route: what it does and the schemas its request is validated with. */
export const ROUTES: Record<string, Record<string, Operation>> = {
  '/health': {
    get: {
      summary: 'version, runner, pause, wait, queue counts, running sessions',
      answer: HealthAnswer,
    },
  },
  '/events': {
    get: {
      summary: 'runner log entries, the running sessions’ parsed streams, status changes',
      events:
        '`runner` (a log entry, as in GET /log), `stream` (a parsed line of a running session, with its `session` and `item`), `status` (the health, when it changes); each with an id to resume from (Last-Event-ID)',
    },
  },
  '/report': {
    get: {
      summary: 'outcomes, cost and time per day and per item',
      query: ReportQuery,
      answer: ReportAnswer,
    },
  },
  '/night': {
    get: {
      summary: "the last run's span, outcomes, spend and failures with the agent's last words",
      answer: NightAnswer,
    },
  },
  '/log': {
    get: { summary: "the runner's latest log entries (state/iteration.log)", answer: LogAnswer },
  },
  '/pause': {
    post: { summary: 'pause now, or after the current item', body: PauseBody, answer: PauseAnswer },
  },
  '/resume': { post: { summary: 'remove the pause', body: EmptyBody, answer: ResumeAnswer } },
  '/items': {
    get: { summary: 'the queue (task texts left out)', query: ItemsQuery, answer: ItemsAnswer },
    post: {
      summary: 'add an item, as ralph add',
      body: NewItemSchema,
      answer: ItemAnswer,
      status: 201,
    },
  },
  '/items/{id}': {
    get: { summary: 'one item', params: ItemParams, answer: ItemAnswer },
    delete: {
      summary: 'remove an item, as ralph rm',
      params: ItemParams,
      query: ForceQuery,
      answer: ItemsRemovedAnswer,
    },
  },
  '/items/{id}/diff': {
    get: {
      summary: "the item's branch against its base (git mode), as ralph diff",
      params: ItemParams,
      answer: DiffAnswer,
    },
  },
  '/review': {
    get: {
      summary:
        "the morning's inbox: every item that waits on a person, most at risk first, each with the parts of its risk score, as ralph review",
      query: ReviewQuery,
      answer: ReviewAnswer,
    },
  },
  '/items/{id}/review': {
    get: {
      summary:
        'everything needed to decide on one item: task, criteria and verdicts, the diff by file, the failing gate, the findings, the last words, cost, the decisions it allows',
      params: ItemParams,
      answer: ReviewPageAnswer,
    },
  },
  '/items/{id}/accept': {
    post: {
      summary:
        "accept the item's work, as ralph accept: it lands, its pull request is merged, or it is recorded",
      params: ItemParams,
      body: AcceptRequest,
      answer: DecidedAnswer,
    },
  },
  '/items/{id}/reject': {
    post: {
      summary:
        "reject the item's work with a note, as ralph reject: its branch kept, a landing reverted, its pull request closed, then back in line with the note (or cancelled)",
      params: ItemParams,
      body: RejectRequest,
      answer: DecidedAnswer,
    },
  },
  '/items/{id}/defer': {
    post: {
      summary: 'hide the item from the inbox until a time, as ralph defer',
      params: ItemParams,
      body: DeferRequest,
      answer: DecidedAnswer,
    },
  },
  '/rules': {
    get: {
      summary:
        'the rules proposed from the lessons that wait on a person, each with its evidence (the notes, findings and changes behind it), and those accepted with how often each was applied and broken, as ralph rules',
      answer: RulesAnswer,
    },
  },
  '/rules/{id}/accept': {
    post: {
      summary:
        'accept a proposed rule, as ralph rules accept: every later session is given it and the reviewer checks it (in the repository: once its change lands)',
      params: RuleParams,
      body: RuleDecisionRequest,
      answer: RuleDecidedAnswer,
    },
  },
  '/rules/{id}/reject': {
    post: {
      summary:
        'reject a proposed rule, as ralph rules reject: it takes no effect and is not proposed again',
      params: RuleParams,
      body: RuleDecisionRequest,
      answer: RuleDecidedAnswer,
    },
  },
  '/rules/{id}/retire': {
    post: {
      summary: 'retire a rule in force, as ralph rules rm',
      params: RuleParams,
      body: RuleDecisionRequest,
      answer: RuleDecidedAnswer,
    },
  },
  '/items/{id}/retry': {
    post: {
      summary: 'retry, as ralph retry (force=1: a done item too)',
      params: ItemParams,
      query: ForceQuery,
      answer: ItemsChangedAnswer,
    },
  },
  '/items/{id}/cancel': {
    post: {
      summary: 'cancel, as ralph cancel (force=1: a done item too)',
      params: ItemParams,
      query: ForceQuery,
      answer: ItemsChangedAnswer,
    },
  },
  '/items/{id}/stop': {
    post: {
      summary:
        'stop the session of one running item, as ralph stop (cancel=1: cancel it too); answers once the runner has',
      params: ItemParams,
      query: StopQuery,
      answer: ItemsChangedAnswer,
    },
  },
  '/items/{id}/messages': {
    post: {
      summary:
        "a message to the item's agent, as ralph say: a running session resumes with it at once, else its next session gets it; it answers an item that needs input",
      params: ItemParams,
      body: MessageRequest,
      answer: MessageSaidAnswer,
    },
  },
  '/sessions': {
    get: {
      summary: 'the session index, newest first',
      query: SessionsQuery,
      answer: SessionsAnswer,
    },
  },
  '/sessions/{id}': {
    get: { summary: 'a session record', params: SessionParams, answer: SessionAnswer },
  },
  '/sessions/{id}/events': {
    get: {
      summary: 'a page of parsed events, or (follow=1) server-sent events to the end',
      params: SessionParams,
      query: SessionEventsQuery,
      answer: SessionEventsAnswer,
      events:
        '`stream` (a parsed event; its id the offset after its line), then `end` once the session has ended',
    },
  },
  '/sessions/{id}/raw': {
    get: {
      summary: 'the stream-json archive, redacted',
      params: SessionParams,
      text: 'application/x-ndjson',
    },
  },
  '/sessions/{id}/gates': {
    get: {
      summary: "the quality gates' commands and output, redacted",
      params: SessionParams,
      text: 'text/plain',
    },
  },
  '/openapi.json': { get: { summary: 'this description', answer: OpenApiAnswer } },
};

/** A request's schema as what it takes, an answer's as what it gives. */
const json = (schema: z.ZodType, io: 'input' | 'output' = 'input') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any' });

/** What an operation answers with when it succeeds, by media type. */
function answers(op: Operation) {
  const content: Record<string, { schema: unknown }> = {};
  if (op.answer !== undefined) content['application/json'] = { schema: json(op.answer, 'output') };
  if (op.events !== undefined)
    content['text/event-stream'] = { schema: { type: 'string', description: op.events } };
  if (op.text !== undefined) content[op.text] = { schema: { type: 'string' } };
  return content;
}

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
      [String(op.status ?? 200)]: { description: op.summary, content: answers(op) },
      default: {
        description:
          'a refusal: 400, 401, 403, 404, 405, 409, 413 or 503 (500: logged by the server)',
        content: { 'application/json': { schema: json(ErrorAnswer, 'output') } },
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
