import { withConversationId } from '../lib/state-schema.js';
import * as z from '../lib/zod.js';
import { ASKED_ROLES } from '../lib/session-roles.js';

/** Lifecycle states of a session, from the spawn to how it ended. */
export const SESSION_STATUSES = [
  'spawning',
  'running',
  'completing',
  'completed',
  'failed',
  'interrupted',
  'timeout',
  'killed',
] as const;

export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Allowed transitions; an interrupted session may run again when it is resumed. */
const TRANSITIONS: Record<SessionStatus, readonly SessionStatus[]> = {
  spawning: ['running', 'failed', 'killed'],
  running: ['completing', 'failed', 'interrupted', 'timeout', 'killed'],
  completing: ['completed', 'failed', 'interrupted', 'timeout', 'killed'],
  completed: [],
  failed: [],
  interrupted: ['running', 'failed'],
  timeout: [],
  killed: [],
};

/** Whether a session may go from one state to another. */
export function canTransition(from: SessionStatus, to: SessionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

const Heartbeat = z.object({
  lastEventAt: z.string().optional(),
  lastActivityAt: z.string().optional(),
  events: z.number(),
  assistantMessages: z.number(),
  toolCalls: z.number(),
  lastTool: z.string().optional(),
  costUsd: z.number().optional(),
  costEstimated: z.boolean().optional(),
  stdoutBytes: z.number(),
  stderrBytes: z.number(),
});

/** Tokens a session spent, in ralph's names for every CLI. */
export const SessionTokensSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheCreation: z.number().nonnegative().optional(),
});

export type SessionTokens = z.output<typeof SessionTokensSchema>;

/** A subscription's usage windows by kind: the share used (0–1) and the reset (epoch seconds). */
export const UsageWindowsSchema = z.record(
  z.string(),
  z.object({ utilization: z.number().min(0), resetsAt: z.number().optional() }),
);

/** The session record: `state/running/<id>.json` while it runs, then the archive's `<id>.json`. */
export const SessionRecordFields = z.looseObject({
  sessionId: z.string(),
  itemId: z.string(),
  itemTitle: z.string(),
  iteration: z.number(),
  attempt: z.number(),
  status: z.enum(SESSION_STATUSES),
  statusReason: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  runner: z.object({ pid: z.number(), startTime: z.string().optional() }),
  pid: z.number().optional(),
  processStartTime: z.string().optional(),
  workDir: z.string(),
  /** The agent CLI that ran it (records of older versions: claude). */
  cli: z.string().default('claude'),
  /** The command as run, secrets redacted. */
  command: z.array(z.string()),
  resumedFrom: z.string().optional(),
  /** Run on a fallback CLI: the CLI it stood in for, and why that one was held. */
  fallback: z.object({ cli: z.string(), reason: z.string() }).optional(),
  /** Characters of the handover its prompt held (what a session of another CLI did before it). */
  handoverChars: z.number().optional(),
  persona: z.string().optional(),
  /** `reviewer`: it reviewed its item's work, read-only (absent: it did the work). */
  role: z.enum(ASKED_ROLES).optional(),
  conversationId: z.string().optional(),
  model: z.string().optional(),
  cliVersion: z.string().optional(),
  yolo: z.boolean(),
  /** The limits the runner holds it to (absent in records of older versions). */
  limits: z
    .object({
      timeoutSeconds: z.number(),
      idleTimeoutSeconds: z.number(),
      /** Absent when nobody holds the session to a budget while it runs (codex). */
      maxBudgetUsd: z.number().optional(),
    })
    .optional(),
  heartbeat: Heartbeat,
  exit: z.object({ code: z.number().nullable(), signal: z.string().nullable() }).optional(),
  stopReason: z.string().optional(),
  outcome: z.object({ kind: z.string(), message: z.string(), retryable: z.boolean() }).optional(),
  result: z
    .object({
      subtype: z.string(),
      isError: z.boolean(),
      numTurns: z.number().optional(),
      durationMs: z.number().optional(),
      costUsd: z.number().optional(),
      /** The cost is the session's tokens at the configured price, not the CLI's own figure. */
      costEstimated: z.boolean().optional(),
      usage: z.record(z.string(), z.unknown()).optional(),
      apiErrorStatus: z.number().optional(),
      permissionDenials: z.array(
        z.object({ toolName: z.string(), toolUseId: z.string().optional() }),
      ),
      text: z.string().optional(),
    })
    .optional(),
  streamIssues: z.record(z.string(), z.number()).optional(),
  /**
   * The secrets of the runner's environment: the names of those the agent was given, and
   * fingerprints of them all (never their values), so that whoever renders the transcript
   * masks them, whatever secrets their own shell holds.
   */
  secrets: z
    .object({
      passed: z.array(z.string()),
      salt: z.string(),
      forms: z.array(z.object({ length: z.number(), rolling: z.number(), sha256: z.string() })),
    })
    .optional(),
  /** A person's messages this session was given (`ralph say`), with who sent each and when. */
  messages: z
    .array(
      z.object({
        from: z.string(),
        at: z.string(),
        text: z.string(),
        /** Given on the CLI's stdin while the session ran, not in its prompt. */
        live: z.boolean().optional(),
      }),
    )
    .optional(),
  /** It ended asking a person something: its item waits for an answer (`needs_input`). */
  asked: z.boolean().optional(),
  /** Its subscription's usage windows as last reported, by kind (`five_hour`, `seven_day`). */
  usageWindows: UsageWindowsSchema.optional(),
  /** The agent's last words (the end of its last message): why it stopped, in its own terms. */
  lastText: z.string().optional(),
  /** The session's tokens, whichever CLI counted them and however it names them. */
  tokens: SessionTokensSchema.optional(),
  /**
   * What it spent before it worked: the tokens of its requests up to the one that made its
   * first tool call (that one included; all of them when it made none), and that share of its
   * cost (an estimate). Only from CLIs that give each message's usage (claude).
   */
  opening: z
    .object({
      tokens: SessionTokensSchema,
      costUsd: z.number().optional(),
      toolCalled: z.boolean(),
    })
    .optional(),
  /** Git mode: the item's branch, its commits since the base and their diffstat. */
  git: z
    .object({
      branch: z.string(),
      base: z.string(),
      worktree: z.string(),
      commits: z.array(z.object({ sha: z.string(), subject: z.string() })),
      diffstat: z.string(),
      /** The files it changed, with their lines added and deleted (the first thousand). */
      files: z
        .array(z.object({ path: z.string(), added: z.number(), deleted: z.number() }))
        .optional(),
      /** Older releases pushed in the session and said so here; the item says it now. */
      pushedTo: z.string().optional(),
    })
    .optional(),
  /** While the session runs: the quality gate its work is being checked by. */
  gate: z.string().optional(),
  /** The quality gates run after the session, in order, up to the first that failed. */
  gates: z
    .array(
      z.object({
        name: z.string(),
        command: z.array(z.string()),
        passed: z.boolean(),
        exitCode: z.number().nullable(),
        signal: z.string().nullable(),
        timedOut: z.boolean(),
        durationMs: z.number(),
        outputBytes: z.number(),
      }),
    )
    .optional(),
  killedProcesses: z.array(z.number()).optional(),
  /** The sandbox the agent and its gates ran in (absent: none). */
  sandbox: z
    .object({
      kind: z.string(),
      network: z.string(),
      /** `off`: the CLI's own sandbox was turned off, ralph's holding it alone. */
      cliOwn: z.literal('off').optional(),
    })
    .optional(),
  /** Connections the sandbox's proxy refused, the first hundred: where to, when, and whose. */
  egressBlocked: z
    .array(
      z.object({
        host: z.string(),
        port: z.number(),
        at: z.string(),
        by: z.enum(['agent', 'gate']),
      }),
    )
    .optional(),
  /** How many connections it refused in all. */
  egressBlockedCount: z.number().optional(),
  files: z.object({
    stdout: z.string(),
    stderr: z.string(),
    prompt: z.string(),
    summary: z.string(),
    record: z.string(),
    gates: z.string().optional(),
  }),
});

/** A session record as read: one written before the rename names its conversation the old way. */
export const SessionRecordSchema = z.preprocess(withConversationId, SessionRecordFields);

export type SessionRecord = z.output<typeof SessionRecordFields>;
