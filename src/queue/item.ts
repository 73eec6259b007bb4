import * as z from '../lib/zod.js';
import { SessionSettingsSchema } from '../config/schema.js';
import { CronSchema, VAR_NAME } from '../config/values.js';
import { QUEUE_SCHEMA } from './file-schema.js';
import { ITEM_STATUSES } from './item-status.js';
import { DECISION_KINDS } from './decision-kinds.js';
import { CLI_NAMES } from '../config/cli-names.js';

/** Placeholders the renderer always provides; item and workspace vars may not shadow them. */
export const BUILTIN_VARS = [
  'SESSION_ID',
  'ITERATION',
  'WORK_ITEM',
  'RIG',
  'ITEM_ID',
  'ITEM_TITLE',
  'ITEM_BODY',
  'CRITERIA',
  'INTERRUPT_FILE',
  'WORK_DIR',
  'PORT',
  'SLOT',
  'ATTEMPT',
  'PREVIOUS_ERROR',
  'GATE_FAILURE',
  'LAND_FAILURE',
  'CHECKS_FAILURE',
  'REVIEW_FINDINGS',
  'HANDOVER',
  'MESSAGES',
  'BRANCH',
] as const;

/** An item's criteria: each a sentence or a few, and few enough for a reviewer to check. */
export const MAX_CRITERIA = 50;
export const MAX_CRITERION_CHARS = 1000;

/** The longest title: it is a line of tables, logs, branch descriptions and prompts. */
export const MAX_TITLE_CHARS = 200;

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** An item id: it becomes part of file names, so only a safe slug is accepted. */
export const ItemIdSchema = z
  .string()
  .regex(
    SLUG,
    'an id is 1 to 100 ASCII letters (a-z, A-Z), digits, ".", "_" or "-", starting with a letter or digit (no accents, slashes, "..", spaces or control characters)',
  );

/** A persona id, as in `agents/AGENT_<id>.md`. */
export const AgentIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    'an agent id is ASCII letters (a-z, A-Z), digits, "_" or "-"',
  );

const Timestamp = z.iso.datetime({ offset: true });

/** A person's message to an item's agent (`ralph say`). */
const MessageSchema = z.strictObject({
  text: z.string().min(1),
  /** Who sent it: `cli`, or the HTTP client's address. */
  from: z.string().min(1),
  at: Timestamp,
  /** The session it was given to; none yet: it goes to the item's next one. */
  session: z.string().optional(),
});

export type Message = z.output<typeof MessageSchema>;

/** An item's pull request on the forge. */
const PullRequestSchema = z.strictObject({
  number: z.int().positive(),
  url: z.string().min(1),
  /** Its branch and the one it goes into. */
  head: z.string().min(1),
  base: z.string().min(1),
  /** `item`: the item's own branch; `landed`: the land target's, shared by what landed. */
  kind: z.enum(['item', 'landed']),
  /** GitLab's merge request; GitHub's pull request when unsaid. */
  forge: z.literal('gitlab').optional(),
});

export type PullRequestRecord = z.output<typeof PullRequestSchema>;

/**
 * Where an imported item came from (`ralph import`): a plan's checklist item, a `prd.json`
 * story, or a forge's issue. `key` is what a second import finds it by.
 */
export const SourceSchema = z.strictObject({
  kind: z.enum(['plan', 'prd', 'github', 'gitlab', 'linear']),
  key: z.string().min(1),
  /**
   * The plan or prd file (as given), the issue's `owner/name` (its GitLab project's path), or
   * its Linear team's key.
   */
  ref: z.string().min(1),
  /** The plan's line, the story's id, the issue's number (a Linear issue's: ENG-12's 12). */
  line: z.int().positive().optional(),
  story: z.string().optional(),
  number: z.int().positive().optional(),
  /** The tracker's own id of the issue (Linear's), which its changes name. */
  remoteId: z.string().min(1).optional(),
  /** Linear: the state ralph last moved the issue to (by what it means), once. */
  told: z.enum(['started', 'review', 'done', 'back']).optional(),
  url: z.string().optional(),
  /** Who wrote the issue: its text is theirs, fenced in the prompt as such unless trusted. */
  author: z.string().optional(),
  /** The author's standing in the repository: GitHub's association (OWNER, MEMBER, NONE…), GitLab's access level (DEVELOPER…). */
  association: z.string().optional(),
  /** Its author is one `import.trust` trusts: the issue's text is the task, not fenced. */
  trusted: z.boolean().optional(),
  /** Closed at the source (the issue closed, the box checked): the item was ended for it. */
  closed: z.boolean().optional(),
  /** When the issue was told its item started (`import.writeBack`). */
  startToldAt: z.iso.datetime({ offset: true }).optional(),
  /** When its end was written back to the issue (`import.writeBack`). */
  writtenBackAt: z.iso.datetime({ offset: true }).optional(),
});

export type Source = z.output<typeof SourceSchema>;

/** A forge's issue, as an item's source. */
export type IssueSource = Source & { kind: 'github' | 'gitlab' };

/** Whether an item came from a forge's issue (GitHub's, GitLab's). */
export const isIssueSource = (source: Source | undefined): source is IssueSource =>
  source?.kind === 'github' || source?.kind === 'gitlab';

/** Whether an item came from an issue tracker (a forge's, or Linear): its words are its author's. */
export const fromTracker = (source: Source | undefined): source is Source =>
  isIssueSource(source) || source?.kind === 'linear';

/** A criterion's verdict as kept: its number, PASS, FAIL or UNKNOWN, and the evidence. */
const CriterionVerdictSchema = z.strictObject({
  id: z.int().positive(),
  verdict: z.enum(['PASS', 'FAIL', 'UNKNOWN']),
  evidence: z.string(),
});

/**
 * A reviewer's last verdict on the item's work, as ralph read and checked it (`review`): each
 * criterion's verdict with its evidence, its findings, and who gave it.
 */
export const ItemVerdictSchema = z.strictObject({
  overall: z.enum(['approve', 'request_changes']),
  summary: z.string().optional(),
  criteria: z.array(CriterionVerdictSchema),
  findings: z.array(
    z.strictObject({
      severity: z.enum(['blocking', 'major', 'minor']),
      place: z.string(),
      finding: z.string(),
    }),
  ),
  /** The rules in force it checked (`ralph rules`), each PASS, FAIL or UNKNOWN with evidence. */
  rules: z
    .array(
      z.strictObject({
        rule: z.string(),
        verdict: z.enum(['PASS', 'FAIL', 'UNKNOWN']),
        evidence: z.string(),
      }),
    )
    .optional(),
  /** The reviewer's CLI and session (its record is archived like any session's). */
  cli: z.string(),
  session: z.string(),
  /** The commit of the branch it reviewed. */
  head: z.string().optional(),
  costUsd: z.number().nonnegative(),
  at: Timestamp,
});

export type ItemVerdict = z.output<typeof ItemVerdictSchema>;

/** What the world is to be made to say of a decision, by the decision stage, in this order. */
export const DECISION_EFFECTS = [
  'keep_branch',
  'revert',
  'close_pull_request',
  'merge_pull_request',
] as const;
export type DecisionEffect = (typeof DECISION_EFFECTS)[number];

/** A candidate's letter: `A` for the first. */
export const CandidateLetterSchema = z.string().regex(/^[A-Z]$/, 'a candidate is a letter, A to Z');

/**
 * A person's last decision on the item's work, as the ledger (`state/decisions.jsonl`) has it:
 * its id there, who and when, the note, and for a rejection what follows it. `effects` are
 * what the decision stage has yet to carry out; `failure` why it could not.
 */
export const ItemDecisionSchema = z.strictObject({
  id: z.string().min(1),
  kind: z.enum(DECISION_KINDS),
  by: z.string().min(1),
  at: Timestamp,
  note: z.string().optional(),
  /** Deferred: hidden from the inbox until then. */
  until: Timestamp.optional(),
  /** Rejected: back in line with the note in its next prompt, or cancelled. */
  then: z.enum(['retry', 'cancel']).optional(),
  /** Accepted: the candidate the person took, if not the one picked. */
  candidate: CandidateLetterSchema.optional(),
  effects: z.array(z.enum(DECISION_EFFECTS)).optional(),
  /** Where the item was when the decision was taken: a failed effect puts it back there. */
  before: z.enum(ITEM_STATUSES).optional(),
  failure: z.string().optional(),
});
export type ItemDecision = z.output<typeof ItemDecisionSchema>;

/** What the item asks: its task, where it stands in line and what it waits for. */
export const ItemAskSchema = z.strictObject({
  id: ItemIdSchema,
  title: z.string().trim().min(1, 'a title is required'),
  body: z.string().optional(),
  bodyFile: z.string().min(1).optional(),
  // The shared queue keeps it in a Postgres integer; a person needs far fewer levels.
  priority: z
    .int()
    .min(-1_000_000, 'a priority is from -1,000,000 to 1,000,000')
    .max(1_000_000, 'a priority is from -1,000,000 to 1,000,000')
    .default(0),
  /**
   * What must hold for the item to be done, each checkable (`ralph add --criterion`): given to
   * its agent (`{{CRITERIA}}`) and to the reviewer that checks its work.
   */
  criteria: z
    .array(
      z
        .string()
        .trim()
        .min(1, 'a criterion cannot be empty')
        .max(MAX_CRITERION_CHARS, `a criterion is at most ${MAX_CRITERION_CHARS} characters`),
    )
    .max(MAX_CRITERIA, `at most ${MAX_CRITERIA} criteria`)
    .optional(),
  dependsOn: z.array(ItemIdSchema).default([]),
  notBefore: Timestamp.optional(),
  schedule: CronSchema.optional(),
  vars: z
    .record(
      z
        .string()
        .regex(VAR_NAME, 'not a placeholder name')
        .refine((name) => !(BUILTIN_VARS as readonly string[]).includes(name), {
          message: 'a built-in placeholder cannot be set in "vars"',
        }),
      z.string(),
    )
    .default({}),
  /** Where it was imported from. */
  source: SourceSchema.optional(),
});

export type ItemAsk = z.output<typeof ItemAskSchema>;

/**
 * Its settings: what it overrides of its persona's and the workspace's (the nearest wins,
 * `config/layers.ts`).
 */
export const ItemSettingsSchema = z.strictObject({
  agent: AgentIdSchema.optional(),
  maxAttempts: z.int().positive().optional(),
  ...SessionSettingsSchema.shape,
});

export type ItemSettings = z.output<typeof ItemSettingsSchema>;

const SETTINGS_KEYS = Object.keys(ItemSettingsSchema.shape);

/**
 * The item's own settings as the schema reads them (a gate given as bare words made whole), or
 * why they cannot be used: whatever path stored the item, its settings are read so before a
 * session, a dry run or a check uses them, and an item that fails is the item's fault alone.
 */
export function itemSettingsOf(item: Item): { settings: ItemSettings } | { problem: string } {
  const own = Object.fromEntries(
    Object.entries(item).filter(
      ([key, value]) => value !== undefined && SETTINGS_KEYS.includes(key),
    ),
  );
  const parsed = ItemSettingsSchema.safeParse(own);
  if (parsed.success) return { settings: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    problem: `its settings cannot be used: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
  };
}

/** What the setup stage runs: a new worktree's setup, or a kept one's maintenance. */
export const ENVIRONMENT_KINDS = ['setup', 'maintenance'] as const;
export type EnvironmentKind = (typeof ENVIRONMENT_KINDS)[number];

/**
 * One candidate of an item (`candidates`): its letter and CLI, and its own item; none is the
 * item's own first attempt, when the others ran after it failed. `out` says why it cannot be
 * picked (its gates, its failure); `head` is the commit it left, once it passed.
 */
export const CandidateEntrySchema = z.strictObject({
  letter: CandidateLetterSchema,
  cli: z.enum(CLI_NAMES),
  model: z.string().min(1).optional(),
  item: ItemIdSchema.optional(),
  out: z.string().optional(),
  branch: z.string().optional(),
  head: z.string().optional(),
  costUsd: z.number().nonnegative().optional(),
  /** What it may spend in all, when its item's candidates are capped together. */
  shareUsd: z.number().nonnegative().optional(),
  /** Seconds from its start to its end. */
  seconds: z.number().nonnegative().optional(),
  /** What its work changed since the base: files, lines added and deleted. */
  changes: z
    .strictObject({
      files: z.int().nonnegative(),
      added: z.int().nonnegative(),
      deleted: z.int().nonnegative(),
    })
    .optional(),
});

export type CandidateEntry = z.output<typeof CandidateEntrySchema>;

/**
 * What the judge made of an item's passing candidates: those it was shown, in the order shown
 * (the first as `A`, whatever its own letter), its verdict translated back to the candidates'
 * own letters, and the one picked; `failure` when it could not pick (nothing goes on then).
 */
export const JudgementSchema = z.strictObject({
  shown: z.array(CandidateLetterSchema),
  cli: z.string().optional(),
  session: z.string().optional(),
  costUsd: z.number().nonnegative(),
  ranking: z.array(CandidateLetterSchema).optional(),
  reason: z.string().optional(),
  criteria: z.record(CandidateLetterSchema, z.array(CriterionVerdictSchema)).optional(),
  picked: CandidateLetterSchema.optional(),
  failure: z.string().optional(),
  /** Where the pick's work goes on (a candidate a person takes goes the same way). */
  then: z.strictObject({ land: z.boolean(), pullRequest: z.boolean() }).optional(),
  at: Timestamp,
});

export type Judgement = z.output<typeof JudgementSchema>;

/** Its life: what ralph writes as it goes, never what a person asks. */
export const ItemLifeSchema = z.strictObject({
  status: z.enum(ITEM_STATUSES).default('pending'),
  attempts: z.int().nonnegative().default(0),
  createdAt: Timestamp.optional(),
  updatedAt: Timestamp.optional(),
  startedAt: Timestamp.optional(),
  finishedAt: Timestamp.optional(),
  /** When a failed attempt may be retried (backoff) or a limit wait ends. */
  retryAfter: Timestamp.optional(),
  sessions: z.array(z.string()).default([]),
  costUsd: z.number().nonnegative().default(0),
  lastError: z.string().optional(),
  lastOutcome: z.string().optional(),
  /** The conversation (claude session, codex thread, …) to resume after an interruption or a failed gate. */
  conversationId: z.string().optional(),
  /** Git mode: the item's branch and the commit it was made from. */
  branch: z.string().optional(),
  baseCommit: z.string().optional(),
  /**
   * The commit of its branch ralph recorded when its last successful session ended (after its
   * leftovers were committed and its gates passed): what is reviewed, landed, pushed and merged.
   * The branch's ref alone is not trusted: any process in a worktree of the repository can move it.
   */
  head: z.string().optional(),
  /** The failing gate's command and the end of its output, for the next attempt's prompt. */
  gateFailure: z.string().optional(),
  /** Landings that failed (a conflict, a land gate) since the item last landed. */
  landRounds: z.int().nonnegative().optional(),
  /** Why the last landing failed, for the next attempt's prompt (`{{LAND_FAILURE}}`). */
  landFailure: z.string().optional(),
  /** Where and when the item's work landed: the target's commit that holds it. */
  landedCommit: z.string().optional(),
  landedOn: z.string().optional(),
  /** The target's commit it landed onto: `ralph diff` shows what the landing brought. */
  landedOnto: z.string().optional(),
  landedAt: Timestamp.optional(),
  /** When its landing was reverted on the target (a person rejected it): it holds no landing. */
  revertedAt: Timestamp.optional(),
  /** Its pull request (the item's own, or the land target's it landed on). */
  pullRequest: PullRequestSchema.optional(),
  /** The commit whose checks the item waits for, pushed at `checksSince`. */
  checksHead: z.string().optional(),
  checksSince: Timestamp.optional(),
  /** What the checks last said, in a line (`3 pending: build, test…`, `green`). */
  checks: z.string().optional(),
  /** Rounds of failed checks (or reviews asking for changes) handed back to the agent. */
  checkRounds: z.int().nonnegative().optional(),
  /** What failed in the checks, for the next attempt's prompt (`{{CHECKS_FAILURE}}`). */
  checksFailure: z.string().optional(),
  /** When the forge merged its pull request. */
  mergedAt: Timestamp.optional(),
  /**
   * When the stage that tends it (landing, a pull request's checks) is to look at it again,
   * and how many looks it has had since it last moved: kept with the item, so a restart goes
   * on where the last run stood.
   */
  lookAgain: z.strictObject({ at: Timestamp, looks: z.int().nonnegative() }).optional(),
  /**
   * Its branch waits to be pushed to this remote (`git.push`) by the push stage: a success's work
   * is pushed after the session, never by the worker. `at`: not before (after a failed push).
   */
  pushTo: z
    .strictObject({
      remote: z.string().min(1),
      at: Timestamp.optional(),
      looks: z.int().nonnegative(),
    })
    .optional(),
  /** The remote its branch was last pushed to. */
  pushedTo: z.string().optional(),
  /** A person's messages to its agent, oldest first. */
  messages: z.array(MessageSchema).optional(),
  /** What its agent asked a person, when it is `needs_input`. */
  question: z.string().optional(),
  /** The last valid verdict of its reviewer (`review`). */
  verdict: ItemVerdictSchema.optional(),
  /** Reviews that asked for changes, handed back to the agent, since it was last retried. */
  reviewRounds: z.int().nonnegative().optional(),
  /** What the reviewer asked to change, for the next attempt's prompt (`{{REVIEW_FINDINGS}}`). */
  reviewFindings: z.string().optional(),
  /** Why its work could not be reviewed yet (a reviewer that failed): it never lands unreviewed. */
  unreviewed: z.string().optional(),
  /** A person's last decision on its work (`ralph review`). */
  decision: ItemDecisionSchema.optional(),
  /** What its reviewers cost, counted in `costUsd` too. */
  reviewCostUsd: z.number().nonnegative().optional(),
  /** Several CLIs try it (`candidates`): its roster, each candidate as it stands. */
  roster: z.array(CandidateEntrySchema).optional(),
  /** It is a candidate of another item: that item, and its letter. */
  candidateOf: z
    .strictObject({
      item: ItemIdSchema,
      letter: CandidateLetterSchema,
      /** What it may spend in all: its share of its item's cap on its candidates. */
      shareUsd: z.number().nonnegative().optional(),
    })
    .optional(),
  /** What the gates and the judge made of its candidates. */
  judgement: JudgementSchema.optional(),
  /**
   * Its worktree's environment (`environment`): what the setup stage is to run for it, when it
   * was last made ready and for which attempt (the attempts spent before it), the log of its
   * commands, and why they last failed.
   */
  environment: z
    .strictObject({
      wanted: z.enum(ENVIRONMENT_KINDS).optional(),
      readyAt: Timestamp.optional(),
      readyFor: z.int().nonnegative().optional(),
      log: z.string().optional(),
      failure: z.string().optional(),
    })
    .optional(),
});

export type ItemEnvironment = NonNullable<ItemLife['environment']>;

export type ItemLife = z.output<typeof ItemLifeSchema>;

/** One work item in `state/queue.json`: what it asks, its settings and its life, side by side. */
export const ItemSchema = z
  .strictObject({
    ...ItemAskSchema.shape,
    ...ItemSettingsSchema.shape,
    ...ItemLifeSchema.shape,
  })
  .refine((item) => !(item.body !== undefined && item.bodyFile !== undefined), {
    message: 'give "body" or "bodyFile", not both',
    path: ['bodyFile'],
  });

export type Item = ItemAsk & ItemSettings & ItemLife;

/** What a person may change of an item (`ralph edit`): its ask and its settings, never its life. */
export type ItemEdit = Partial<Omit<ItemAsk, 'id'> & ItemSettings>;

/** The whole queue file. */
export const QueueFileSchema = z
  .strictObject({
    /** Read files are migrated to it first (`migrateQueueFile`). */
    schema: z.literal(QUEUE_SCHEMA).default(QUEUE_SCHEMA),
    version: z.int().nonnegative().default(0),
    items: z.array(ItemSchema),
  })
  .superRefine((queue, ctx) => {
    const seen = new Set<string>();
    queue.items.forEach((item, index) => {
      if (seen.has(item.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['items', index, 'id'],
          message: `duplicate id ${JSON.stringify(item.id)}`,
        });
      }
      seen.add(item.id);
    });
  });

export type QueueFile = z.output<typeof QueueFileSchema>;
