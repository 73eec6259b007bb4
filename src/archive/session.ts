import { openingTokens, type StreamSummary } from '../stream/summary.js';
import { formatUsd } from '../lib/text.js';
import type { SessionFiles } from './paths.js';
import {
  canTransition,
  type SessionRecord,
  type SessionStatus,
  type SessionTokens,
} from './record.js';
import type { AskedRole } from '../lib/session-roles.js';

/**
 * The session record as a value changed by named transitions, like the queue's items: each
 * returns a new record, and a move the lifecycle does not allow is a bug in ralph.
 */
function moveTo(record: SessionRecord, status: SessionStatus): SessionRecord {
  if (!canTransition(record.status, status)) {
    throw new Error(
      `session ${record.sessionId}: no transition from ${record.status} to ${status}`,
    );
  }
  return { ...record, status };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What a new session is, before anything is spawned. */
export interface NewSession {
  sessionId: string;
  itemId: string;
  itemTitle: string;
  iteration: number;
  attempt: number;
  startedAt: number;
  runner: { pid: number; startTime?: string };
  workDir: string;
  /** The agent CLI that runs it. */
  cli: string;
  /** The command, secrets already masked. */
  command: string[];
  resumedFrom?: string;
  fallback?: SessionRecord['fallback'];
  handoverChars?: number;
  persona?: string;
  role?: AskedRole;
  yolo: boolean;
  limits: SessionRecord['limits'];
  secrets?: SessionRecord['secrets'];
  messages?: SessionRecord['messages'];
  files: SessionFiles;
}

/** A session about to be spawned. */
export function spawningSession(init: NewSession): SessionRecord {
  const { files, startedAt, ...rest } = init;
  return {
    ...rest,
    status: 'spawning',
    startedAt: iso(startedAt),
    heartbeat: { events: 0, assistantMessages: 0, toolCalls: 0, stdoutBytes: 0, stderrBytes: 0 },
    files: {
      stdout: files.stdout,
      stderr: files.stderr,
      prompt: files.prompt,
      summary: files.summary,
      record: files.record,
    },
  };
}

/** The binary could not be started. */
export function spawnFailed(
  record: SessionRecord,
  reason: string,
  retryable: boolean,
  now: number,
): SessionRecord {
  return {
    ...moveTo(record, 'failed'),
    statusReason: reason,
    endedAt: iso(now),
    outcome: { kind: 'spawn_failed', message: reason, retryable },
  };
}

/** The agent's process is running. */
export function runningSession(
  record: SessionRecord,
  pid: number,
  processStartTime: string | undefined,
): SessionRecord {
  return { ...moveTo(record, 'running'), pid, processStartTime };
}

/** Progress figures of a running session, as supervision reports them. */
export interface Progress {
  summary: StreamSummary;
  /** The session's cost so far: the CLI's figure, or an estimate from its tokens. */
  cost?: { usd: number; estimated: boolean };
  stdoutBytes: number;
  stderrBytes: number;
  lastActivityAt: number;
}

/** The heartbeat: what the session has done so far. */
export function withProgress(record: SessionRecord, progress: Progress): SessionRecord {
  const s = progress.summary;
  return {
    ...record,
    conversationId: s.conversationId ?? record.conversationId,
    model: s.model ?? record.model,
    cliVersion: s.cliVersion ?? record.cliVersion,
    heartbeat: {
      lastEventAt: s.lastEventAtMs === undefined ? undefined : iso(s.lastEventAtMs),
      lastActivityAt: iso(progress.lastActivityAt),
      events: s.events,
      assistantMessages: s.assistantMessages,
      toolCalls: s.toolCalls,
      lastTool: s.lastTool,
      costUsd: progress.cost?.usd,
      costEstimated: progress.cost?.estimated === true ? true : undefined,
      stdoutBytes: progress.stdoutBytes,
      stderrBytes: progress.stderrBytes,
    },
  };
}

/** How a session's agent ended, and what ralph made of it. */
export interface Ending {
  status: SessionStatus;
  outcome: { kind: string; message: string; retryable: boolean };
  exit: { code: number | null; signal: string | null };
  stopReason?: string;
  killedProcesses: number[];
  progress: Progress;
  now: number;
}

/**
 * The session's tokens: what its CLI's usage events added up to (codex, gemini, opencode, pi),
 * else what claude's result line counted.
 */
export function sessionTokens(summary: StreamSummary): SessionTokens | undefined {
  if (summary.tokens !== undefined)
    return {
      input: summary.tokens.inputTokens,
      output: summary.tokens.outputTokens,
      cacheRead: summary.tokens.cacheReadTokens,
    };
  const usage = summary.result?.usage;
  if (usage === undefined) return undefined;
  const count = (name: string) => (typeof usage[name] === 'number' ? usage[name] : undefined);
  const input = count('input_tokens');
  const output = count('output_tokens');
  if (input === undefined && output === undefined) return undefined;
  return {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: count('cache_read_input_tokens'),
    cacheCreation: count('cache_creation_input_tokens'),
  };
}

/**
 * Anthropic's prices relative to an input token, alike for every Claude model: a cache write
 * 1.25, a cache read 0.1, an output token 5. A request's cost is not reported, its session's is:
 * a part of a session costs its share of the session's tokens weighted so.
 */
const TOKEN_WEIGHTS = { input: 1, cacheCreation: 1.25, cacheRead: 0.1, output: 5 } as const;

const weighted = (t: SessionTokens) =>
  t.input * TOKEN_WEIGHTS.input +
  (t.cacheCreation ?? 0) * TOKEN_WEIGHTS.cacheCreation +
  (t.cacheRead ?? 0) * TOKEN_WEIGHTS.cacheRead +
  t.output * TOKEN_WEIGHTS.output;

/** What the session spent before its first tool call, and that share of its cost. */
export function sessionOpening(
  summary: StreamSummary,
  /** The session's tokens (`sessionTokens`). */
  whole: SessionTokens | undefined,
  cost: { usd: number } | undefined,
): SessionRecord['opening'] {
  if (summary.opening === undefined) return undefined;
  const counted = openingTokens(summary.opening);
  const tokens: SessionTokens = {
    input: counted.inputTokens,
    output: counted.outputTokens,
    cacheRead: counted.cacheReadTokens,
    cacheCreation: counted.cacheCreationTokens,
  };
  const share =
    whole === undefined || weighted(whole) === 0
      ? undefined
      : Math.min(1, weighted(tokens) / weighted(whole));
  return {
    tokens,
    costUsd: share === undefined || cost === undefined ? undefined : cost.usd * share,
    toolCalled: summary.opening.toolCalled,
  };
}

/** Characters of the agent's last message a record keeps. */
const LAST_WORDS_CHARS = 2000;

function lastWords(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed.slice(-LAST_WORDS_CHARS);
}

/** What the agent's result line said, with the session's cost. */
function agentResult(
  summary: StreamSummary,
  cost: { usd: number; estimated: boolean } | undefined,
): SessionRecord['result'] {
  const result = summary.result;
  if (result === undefined) return undefined;
  return {
    subtype: result.subtype,
    isError: result.isError,
    numTurns: result.numTurns,
    durationMs: result.durationMs,
    costUsd: cost?.usd,
    costEstimated: cost?.estimated === true ? true : undefined,
    usage: result.usage,
    apiErrorStatus: result.apiErrorStatus,
    permissionDenials: summary.permissionDenials.map((d) => ({
      toolName: d.toolName,
      toolUseId: d.toolUseId,
    })),
    text: result.text?.slice(0, RESULT_TEXT_CHARS),
  };
}

/** Characters of the agent's result a record keeps (the stream keeps it whole). */
const RESULT_TEXT_CHARS = 4096;

/** The agent has exited: completing, then the final state with everything it left. */
export function endedSession(record: SessionRecord, ending: Ending): SessionRecord {
  const { summary } = ending.progress;
  const tokens = sessionTokens(summary);
  return {
    ...withProgress(moveTo(moveTo(record, 'completing'), ending.status), ending.progress),
    statusReason: ending.outcome.message,
    endedAt: iso(ending.now),
    exit: ending.exit,
    stopReason: ending.stopReason,
    outcome: ending.outcome,
    result: agentResult(summary, ending.progress.cost),
    lastText: lastWords(summary.lastText),
    tokens,
    opening: sessionOpening(summary, tokens, ending.progress.cost),
    usageWindows: summary.usageWindows,
    streamIssues: summary.issues,
    killedProcesses: ending.killedProcesses,
  };
}

/** The runner died while the session ran: what a new runner found of it. */
export function orphanedSession(
  record: SessionRecord,
  found: {
    summary: StreamSummary;
    /** What the agent's own result line says it cost, when it got that far. */
    cost?: { usd: number; estimated: boolean };
    stdoutBytes: number;
    killedProcesses: number[];
    now: number;
  },
): SessionRecord {
  const { summary, cost } = found;
  const result = summary.result;
  const tokens = sessionTokens(summary);
  // The agent may have finished before the runner died: what it reported is kept.
  const reason =
    result === undefined
      ? 'the runner died while the session ran'
      : `the runner died after the agent ended (${result.subtype}${cost === undefined ? '' : `, $${formatUsd(cost.usd)}`}), before its work was checked`;
  // A record left at its final state (the crash came after the end) keeps it.
  const base = canTransition(record.status, 'killed') ? moveTo(record, 'killed') : record;
  return {
    ...base,
    statusReason: reason,
    endedAt: iso(found.now),
    outcome: { kind: 'runner_died', message: reason, retryable: true },
    result: agentResult(summary, cost) ?? record.result,
    lastText: lastWords(summary.lastText) ?? record.lastText,
    tokens,
    opening: sessionOpening(summary, tokens, cost),
    usageWindows: summary.usageWindows ?? record.usageWindows,
    killedProcesses: found.killedProcesses,
    conversationId: record.conversationId ?? summary.conversationId,
    streamIssues: summary.issues,
    heartbeat: {
      ...record.heartbeat,
      events: summary.events,
      assistantMessages: summary.assistantMessages,
      toolCalls: summary.toolCalls,
      stdoutBytes: found.stdoutBytes,
      costUsd: cost?.usd ?? record.heartbeat.costUsd,
    },
  };
}
