import { IndexEntrySchema } from '../archive/index-entry.js';
import { SessionRecordFields } from '../archive/record.js';
import * as z from '../lib/zod.js';
import { PlanSummarySchema } from '../events/plan-summary.js';
import { PlanOutcomeSchema } from '../forecast/plan-outcome.js';
import { ItemSchema } from '../queue/item.js';
import { ITEM_STATUSES } from '../queue/item-status.js';
import { DECISION_VERB_LIST } from '../queue/decision-kinds.js';

// What every route answers with: described by GET /openapi.json, the types the dashboard
// imports (src/server/api-types.ts), and held to the real answers by test/server/responses.test.ts.

const time = z.string();
const usd = z.number();

/** Every refusal: 400, 401, 403, 404, 405, 409, 413, 503 (and 500, said no more of). */
export const ErrorAnswer = z.strictObject({
  error: z.string(),
  /** The request's field at fault (400). */
  field: z.string().optional(),
});

const RunningSessionAnswer = z.strictObject({
  cli: z.string(),
  itemId: z.string(),
  itemTitle: z.string(),
  sessionId: z.string(),
  status: z.string(),
  startedAt: time,
  lastActivityAt: time.optional(),
  assistantMessages: z.number(),
  toolCalls: z.number(),
  lastTool: z.string().optional(),
  costUsd: usd.optional(),
  limits: z
    .strictObject({
      timeoutSeconds: z.number(),
      idleTimeoutSeconds: z.number(),
      maxBudgetUsd: usd.optional(),
    })
    .optional(),
  costEstimated: z.boolean().optional(),
  branch: z.string().optional(),
  gate: z.string().optional(),
});

const FleetRunnerAnswer = z.strictObject({
  id: z.string(),
  host: z.string(),
  pid: z.number(),
  workspace: z.string(),
  workers: z.number(),
  startedAt: time,
  heartbeatAt: time,
  items: z.array(z.string()),
});

const reason = z.strictObject({ reason: z.string() });

/** `GET /health`: `ralph status --json` less the seconds a client counts itself, and the server. */
export const HealthAnswer = z.strictObject({
  version: z.string(),
  readOnly: z.boolean(),
  root: z.string(),
  runner: z.strictObject({ pid: z.number(), startedAt: time }).optional(),
  paused: reason.optional(),
  pauseAfterCurrent: reason.optional(),
  waiting: z.strictObject({ until: time, reason: z.string(), event: z.string() }).optional(),
  /** Agent CLIs the runner starts no item on (a usage limit, the reserve), each until when. */
  heldClis: z
    .array(
      z.strictObject({
        cli: z.string(),
        until: time.optional(),
        reason: z.string(),
        kind: z.string(),
      }),
    )
    .optional(),
  queue: z.record(z.string(), z.number()),
  queueVersion: z.number(),
  fleet: z
    .strictObject({
      queue: z.string(),
      unreachable: z.string().optional(),
      paused: z.strictObject({ reason: z.string(), at: time, by: z.string() }).optional(),
      runners: z.array(FleetRunnerAnswer),
    })
    .optional(),
  landing: z
    .strictObject({
      targets: z.array(
        z.strictObject({ target: z.string(), landed: z.number(), commit: z.string() }),
      ),
      refused: z.array(
        z.strictObject({ id: z.string(), status: z.enum(ITEM_STATUSES), error: z.string() }),
      ),
    })
    .optional(),
  pullRequests: z
    .array(
      z.strictObject({
        id: z.string(),
        number: z.number(),
        url: z.string(),
        status: z.enum(ITEM_STATUSES),
        checks: z.string().optional(),
        forge: z.literal('gitlab').optional(),
      }),
    )
    .optional(),
  needsInput: z.array(z.strictObject({ id: z.string(), question: z.string() })).optional(),
  stalled: z
    .array(
      z.strictObject({
        id: z.string(),
        status: z.enum(ITEM_STATUSES),
        why: z.string(),
      }),
    )
    .optional(),
  running: z.array(RunningSessionAnswer),
  orphaned: z
    .strictObject({ itemIds: z.array(z.string()), sessions: z.array(z.string()) })
    .optional(),
  unreadable: z.array(z.strictObject({ file: z.string(), problem: z.string() })).optional(),
  quarantined: z.array(z.string()).optional(),
  server: z.strictObject({ pid: z.number(), url: z.string(), readOnly: z.boolean() }).optional(),
  budget: z.strictObject({
    run: z
      .strictObject({
        startedAt: time,
        costUsd: usd,
        iterations: z.number(),
        maxCostUsd: usd.optional(),
        maxIterations: z.number().optional(),
      })
      .optional(),
    totalCostUsd: usd,
    iterations: z.number(),
  }),
});

/** Why a waiting item does not run yet (a dependency, a time, a backoff). */
const waiting = z.string().optional();

const { body: _body, ...listedItem } = ItemSchema.shape;

/** `GET /items`: the queue without the task texts. */
export const ItemsAnswer = z.strictObject({
  items: z.array(z.strictObject({ ...listedItem, waiting })),
  maxAttempts: z.number(),
});

/** `GET /items/:id`, and `POST /items` (201): the item whole. */
export const ItemAnswer = ItemSchema;

/** `GET /items/:id/diff`: the branch against its base (`branch` null outside git mode). */
export const DiffAnswer = z.strictObject({
  branch: z.string().nullable(),
  base: z.string().optional(),
  /** The item landed: the diff is what its landing brought onto the target, from `base`. */
  landed: z.boolean().optional(),
  diff: z.string(),
  /** The diff was cut at 512 KB (`ralph diff` shows it whole). */
  truncated: z.boolean(),
});

/** `POST /items/:id/retry` and `/cancel`: the items changed (with what depended on them). */
export const ItemsChangedAnswer = z.strictObject({
  items: z.array(z.string()),
  status: z.enum(ITEM_STATUSES),
});

/** `POST /items/:id/messages`: what became of the message (`ralph say`'s words in `text`). */
export const MessageSaidAnswer = z.strictObject({
  item: z.string(),
  said: z.enum(['kept', 'answered', 'given', 'resuming', 'not_in_time']),
  text: z.string(),
});

const RiskPartAnswer = z.strictObject({ name: z.string(), points: z.number(), why: z.string() });

const InboxRowFields = {
  waits: z.enum(['decide', 'answer', 'failure']),
  score: z.number(),
  parts: z.array(RiskPartAnswer),
  /** What happened, in one line, and how it came to be (`gate failed → done`). */
  what: z.string(),
  chain: z.string(),
  changes: z
    .strictObject({
      files: z.number(),
      added: z.number(),
      deleted: z.number(),
      paths: z.array(z.string()),
    })
    .optional(),
  sensitive: z.array(z.string()),
};

/** `GET /review`: every item that waits on a person, most at risk first, as `ralph review`. */
export const ReviewAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      status: z.string(),
      costUsd: usd,
      /** The decisions the item allows now. */
      decisions: z.array(z.enum(DECISION_VERB_LIST)),
      ...InboxRowFields,
    }),
  ),
});

/** `GET /items/:id/review`: everything needed to decide on one item, as `ralph review <id>`. */
export const ReviewPageAnswer = z.strictObject({
  item: ItemSchema,
  row: z.strictObject({ ...InboxRowFields, item: ItemSchema }).optional(),
  task: z.string(),
  criteria: z.array(
    z.strictObject({
      text: z.string(),
      verdict: z.string().optional(),
      evidence: z.string().optional(),
    }),
  ),
  gateFailure: z.string().optional(),
  landFailure: z.string().optional(),
  checksFailure: z.string().optional(),
  findings: z.array(
    z.strictObject({ severity: z.string(), place: z.string(), finding: z.string() }),
  ),
  verdict: z
    .strictObject({ overall: z.string(), summary: z.string().optional(), cli: z.string() })
    .optional(),
  finalMessage: z.string().optional(),
  costUsd: usd,
  durationMs: z.number(),
  sessions: z.number(),
  reviews: z.number(),
  diff: z
    .strictObject({
      files: z.array(
        z.strictObject({
          path: z.string(),
          added: z.number(),
          deleted: z.number(),
          text: z.string().optional(),
          cut: z.boolean().optional(),
        }),
      ),
      landed: z.boolean(),
      error: z.string().optional(),
    })
    .optional(),
  decisions: z.array(z.enum(DECISION_VERB_LIST)),
});

/** `POST /items/:id/accept`, `/reject`, `/defer`: the decision, and what became of the item. */
export const DecidedAnswer = z.strictObject({
  item: z.string(),
  decision: z.enum(['accepted', 'rejected', 'deferred']),
  /** Its line in `state/decisions.jsonl`. */
  id: z.string(),
  status: z.string(),
  text: z.string(),
});

/** `DELETE /items/:id`. */
export const ItemsRemovedAnswer = z.strictObject({
  items: z.array(z.string()),
  removed: z.literal(true),
});

export const PauseAnswer = z.strictObject({
  paused: z.enum(['now', 'after-current']),
  /** The runner's pid, null when none runs (the pause waits for the next). */
  runner: z.number().nullable(),
});

export const ResumeAnswer = z.strictObject({
  resumed: z.boolean(),
  /** The reason of the pause removed. */
  wasPaused: z.string().nullable(),
});

const Failure = z.strictObject({
  sessionId: z.string(),
  itemId: z.string(),
  outcome: z.string(),
  message: z.string().optional(),
});

/** What sessions spent before their first tool call, beside what they spent in all. */
const OpeningAnswer = z.strictObject({
  sessions: z.number(),
  tokens: z.number(),
  totalTokens: z.number(),
  costUsd: usd,
  totalCostUsd: usd,
});

const ReportGroupAnswer = z.strictObject({
  key: z.string(),
  sessions: z.number(),
  /** Sessions that succeeded, and those that ended asking a person (no success). */
  succeeded: z.number(),
  asked: z.number(),
  retried: z.number(),
  failed: z.number(),
  interrupted: z.number(),
  costUsd: usd,
  costEstimated: z.boolean(),
  seconds: z.number(),
  failures: z.array(Failure),
  opening: OpeningAnswer.optional(),
});

/** What the landings came to, and what a landed change cost (absent without landing). */
const LandingReportAnswer = z.strictObject({
  landed: z.number(),
  waiting: z.number(),
  notLanded: z.array(
    z.strictObject({ itemId: z.string(), status: z.enum(ITEM_STATUSES), error: z.string() }),
  ),
  landedCostUsd: usd,
  otherCostUsd: usd,
  costPerLandedUsd: usd.optional(),
  costEstimated: z.boolean(),
});

/** The pull requests of the items worked on, by number (absent without any). */
const PullRequestsAnswer = z.array(
  z.strictObject({
    itemId: z.string(),
    number: z.number(),
    url: z.string(),
    state: z.string(),
    checks: z.string().optional(),
    redRounds: z.number(),
    forge: z.literal('gitlab').optional(),
  }),
);

/** What the sandbox refused in the span: each `host:port`, in how many sessions. */
/** Sessions run on a fallback CLI (absent when none did). */
const FallbackReportAnswer = z.strictObject({
  sessions: z.number(),
  costUsd: usd,
  costEstimated: z.boolean(),
  pairs: z.array(
    z.strictObject({ cli: z.string(), for: z.string(), sessions: z.number(), costUsd: usd }),
  ),
});

const EgressReportAnswer = z.strictObject({
  refused: z.number(),
  hosts: z.array(z.strictObject({ host: z.string(), sessions: z.number() })),
});

/** The imported items worked on in the span: where each came from. */
const ImportedAnswer = z.array(
  z.strictObject({
    itemId: z.string(),
    status: z.string(),
    source: z.string(),
    url: z.string().optional(),
    writtenBackAt: time.optional(),
  }),
);

/** The notifications of the span: counts, and the latest with each target's delivery. */
const NotificationsAnswer = z.strictObject({
  sent: z.number(),
  waiting: z.number(),
  givenUp: z.number(),
  byEvent: z.record(z.string(), z.number()),
  latest: z.array(
    z.strictObject({
      at: time,
      event: z.string(),
      title: z.string(),
      targets: z.array(
        z.strictObject({
          target: z.string(),
          sentAt: time.optional(),
          error: z.string().optional(),
          retryAt: time.optional(),
        }),
      ),
    }),
  ),
});

/** The person's decisions of the span (the ledger's): their pace, wait, time and agreement. */
const DecisionsAnswer = z.strictObject({
  decisions: z.number(),
  accepted: z.number(),
  rejected: z.number(),
  deferred: z.number(),
  byDay: z.array(z.strictObject({ day: z.string(), decisions: z.number() })),
  medianWaitMs: z.number().optional(),
  reviewTime: z
    .strictObject({ timed: z.number(), medianMs: z.number(), totalMs: z.number() })
    .optional(),
  reviewed: z
    .strictObject({
      decisions: z.number(),
      agreed: z.number(),
      approvals: z.number(),
      approvalsAccepted: z.number(),
    })
    .optional(),
});

/** The person's decisions night over night (a UTC day), oldest first. */
const NightsAnswer = z.array(
  z.strictObject({
    day: z.string(),
    firstDecided: z.number(),
    firstPassAccepted: z.number(),
    accepted: z.number(),
    costed: z.number(),
    acceptedCostUsd: usd,
    medianReviewMs: z.number().optional(),
    rulesApplied: z.number(),
    rulesBroken: z.number(),
    repeatedRejections: z.number(),
  }),
);

/** A rule proposed from the lessons, as a person decides on it: the evidence it rests on. */
export const ProposedRuleAnswer = z.strictObject({
  id: z.string(),
  text: z.string(),
  kind: z.enum(['follow', 'dismiss']),
  scope: z.array(z.string()),
  proposal: z.string(),
  proposedAt: time,
  cli: z.string().optional(),
  evidence: z.array(
    z.strictObject({
      id: z.string(),
      kind: z.string(),
      text: z.string(),
      decisions: z.array(z.string()),
      items: z.array(
        z.strictObject({
          id: z.string(),
          title: z.string().optional(),
          diff: z.string().optional(),
        }),
      ),
    }),
  ),
});

/** `POST /rules/:id/accept|reject|retire`: the rule as it is after, in words. */
export const RuleDecidedAnswer = z.strictObject({
  rule: z.string(),
  status: z.enum(['proposed', 'accepted', 'rejected', 'retired']),
  text: z.string(),
});

/** A rule a person accepted (`ralph rules`), with what it achieved. */
export const RuleAnswer = z.strictObject({
  id: z.string(),
  text: z.string(),
  kind: z.enum(['follow', 'dismiss']),
  scope: z.array(z.string()),
  status: z.enum(['proposed', 'accepted', 'rejected', 'retired']),
  into: z.enum(['workspace', 'repository']).optional(),
  evidence: z.array(z.string()),
  applied: z.number(),
  broken: z.number(),
  rejectionsBefore: z.number(),
  rejectionsAfter: z.number(),
  inForce: z.boolean(),
  acceptedAt: time.optional(),
  acceptedBy: z.string().optional(),
  retiredAt: time.optional(),
});

/** `GET /report`: sums by day, item and CLI, oldest first. */
export const ReportAnswer = z.strictObject({
  since: time.optional(),
  byDay: z.array(ReportGroupAnswer),
  byItem: z.array(ReportGroupAnswer),
  byCli: z.array(ReportGroupAnswer),
  fallbacks: FallbackReportAnswer.optional(),
  opening: OpeningAnswer.optional(),
  landing: LandingReportAnswer.optional(),
  pullRequests: PullRequestsAnswer.optional(),
  egress: EgressReportAnswer.optional(),
  imported: ImportedAnswer.optional(),
  notifications: NotificationsAnswer.optional(),
  decisions: DecisionsAnswer.optional(),
  nights: NightsAnswer,
  rules: z.array(RuleAnswer),
});

/** `GET /rules`: the rules proposed that wait on a person, and those accepted, with their figures. */
export const RulesAnswer = z.strictObject({
  proposed: z.array(ProposedRuleAnswer),
  rules: z.array(RuleAnswer),
});

/** `GET /night`: the last run at a glance, each failure with the agent's last words. */
export const NightAnswer = z.strictObject({
  startedAt: time.optional(),
  lastEndedAt: time.optional(),
  sessions: z.number(),
  done: z.number(),
  failed: z.number(),
  retried: z.number(),
  costUsd: usd,
  costEstimated: z.boolean(),
  maxCostUsd: usd.optional(),
  budgetLeftUsd: usd.optional(),
  failures: z.array(Failure.extend({ lastWords: z.string().optional() })),
  landing: LandingReportAnswer.optional(),
  pullRequests: PullRequestsAnswer.optional(),
  /** The plan this run started with (`ralph plan`), and how the night has gone against it. */
  plan: z
    .strictObject({
      summary: PlanSummarySchema,
      outcome: PlanOutcomeSchema,
    })
    .optional(),
});

/** `GET /log`: the runner's latest log entries, each with its time, level and event. */
export const LogAnswer = z.strictObject({
  entries: z.array(z.looseObject({ time, level: z.string(), event: z.string() })),
});

/** `GET /sessions`: a page of the index, newest first, running sessions included. */
export const SessionsAnswer = z.strictObject({
  total: z.number(),
  offset: z.number(),
  limit: z.number(),
  /** Index lines that could not be read. */
  skipped: z.number(),
  sessions: z.array(IndexEntrySchema),
});

/** `GET /sessions/:id`: the session record. */
export const SessionAnswer = SessionRecordFields;

const tokens = z.strictObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheCreationTokens: z.number().optional(),
});

/** One parsed line of a session's stream, by its kind (the same for every CLI). */
export const StreamEventAnswer = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('init'),
    cli: z.string(),
    sessionId: z.string(),
    model: z.string().optional(),
    tools: z.array(z.string()),
    cwd: z.string().optional(),
    version: z.string().optional(),
    permissionMode: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('assistant'),
    /** The model's message the line is of (claude gives each content block a line). */
    messageId: z.string().optional(),
    model: z.string().optional(),
    texts: z.array(z.string()),
    toolUses: z.array(z.strictObject({ id: z.string(), name: z.string(), input: z.unknown() })),
    /** Written by the CLI itself, not the model. */
    synthetic: z.boolean(),
    usage: tokens.optional(),
  }),
  z.strictObject({
    kind: z.literal('tool_results'),
    results: z.array(
      z.strictObject({ toolUseId: z.string(), isError: z.boolean(), text: z.string() }),
    ),
  }),
  z.strictObject({
    kind: z.literal('result'),
    result: z.strictObject({
      subtype: z.string(),
      isError: z.boolean(),
      text: z.string().optional(),
      totalCostUsd: usd.optional(),
      numTurns: z.number().optional(),
      durationMs: z.number().optional(),
      sessionId: z.string().optional(),
      usage: z.record(z.string(), z.unknown()).optional(),
      permissionDenials: z.array(
        z.strictObject({
          toolName: z.string(),
          toolUseId: z.string().optional(),
          toolInput: z.unknown().optional(),
        }),
      ),
      apiErrorStatus: z.number().optional(),
      apiErrorType: z.string().optional(),
      terminalReason: z.string().optional(),
      errors: z.array(z.string()),
    }),
  }),
  z.strictObject({
    kind: z.literal('rate_limit'),
    status: z.string(),
    resetsAt: z.number().optional(),
    rateLimitType: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('api_retry'),
    attempt: z.number().optional(),
    maxRetries: z.number().optional(),
    retryDelayMs: z.number().optional(),
    errorStatus: z.number().optional(),
    error: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('permission_denied'),
    toolName: z.string().optional(),
    toolUseId: z.string().optional(),
    message: z.string().optional(),
  }),
  z.strictObject({ kind: z.literal('usage'), tokens, costUsd: usd.optional() }),
  z.strictObject({ kind: z.literal('delta') }),
  /** A line of a type this version does not model. */
  z.strictObject({ kind: z.literal('other'), type: z.string(), subtype: z.string().optional() }),
  /** A line that could not be used; the archive keeps its bytes. */
  z.strictObject({
    kind: z.literal('issue'),
    issue: z.enum(['invalid_json', 'schema', 'oversize', 'truncated', 'too_deep', 'invalid_utf8']),
    detail: z.string(),
    bytes: z.number(),
  }),
]);

/** `GET /sessions/:id/events`: a page of parsed events, each with the offset after its line. */
export const SessionEventsAnswer = z.strictObject({
  events: z.array(z.intersection(StreamEventAnswer, z.strictObject({ offset: z.number() }))),
  /** The offset to ask from next. */
  next: z.number(),
  /** The session has ended and its stream is read whole. */
  done: z.boolean(),
});

/** `GET /openapi.json`: an OpenAPI 3.1 document. */
export const OpenApiAnswer = z.looseObject({
  openapi: z.literal('3.1.0'),
  paths: z.record(z.string(), z.unknown()),
});
