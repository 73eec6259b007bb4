import { unreachable } from '../lib/errors.js';
import { plural } from '../lib/text.js';
import type { ResultInfo } from '../stream/events.js';
import type { StreamSummary } from '../stream/summary.js';
import type { ExitStatus } from './process.js';

/** Why the runner itself ended a session, if it did. */
export type StopReason =
  | 'timeout'
  | 'idle_timeout'
  | 'interrupt'
  | 'shutdown'
  /** A person stopped this one session (`ralph stop`); the rest of the night goes on. */
  | 'requested'
  /** The agent printed `result` but did not exit within the grace. */
  | 'after_result'
  /** The agent wrote more than the output cap. */
  | 'output_limit'
  /** ralph's count of the agent's turns passed the limit (a CLI without a limit of its own). */
  | 'max_turns'
  /** ralph's figure of the session's cost passed its budget (likewise). */
  | 'max_budget'
  /** The state or archive file system ran low on space. */
  | 'disk_full';

/** Every way a session can end. */
export const OUTCOME_KINDS = [
  'success',
  'permission_denied',
  'max_turns',
  'max_budget',
  'error_during_execution',
  'api_error',
  'rate_limited',
  'auth_error',
  'credit_exhausted',
  'no_result',
  'signal_exit',
  'exit_error',
  'spawn_failed',
  'timeout',
  'idle_timeout',
  'output_limit',
  /** Stopped because the disk ran low: the item is interrupted and the night pauses. */
  'disk_full',
  'interrupted',
  'stopped',
  /**
   * ralph's sandbox could not be set up (bubblewrap or its launcher said why before the agent
   * started): the environment's fault, no attempt spent, the night paused with the reason.
   */
  'sandbox_failed',
  /** `--resume` found no conversation: the item starts afresh, no attempt spent. */
  'resume_failed',
  /**
   * The session succeeded but a quality gate failed: retried with the failure in the prompt,
   * unless the gate could not even start (no retry can fix a missing program).
   */
  'gate_failed',
] as const;

export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

/** The lifecycle state a session record ends in. */
export type FinalSessionStatus = 'completed' | 'failed' | 'timeout' | 'interrupted' | 'killed';

/** What every outcome says. */
interface OutcomeBase {
  status: FinalSessionStatus;
  /** One line for people. */
  message: string;
  /** Whether another attempt may do better (a failure that is not the configuration's). */
  retryable: boolean;
  /** Whether it counts towards the consecutive-failure circuit breaker. */
  countsAsFailure: boolean;
}

/** Outcomes that pause the whole night: a person must act (pay, log in). */
export type PausingKind = 'auth_error' | 'credit_exhausted' | 'sandbox_failed';

/**
 * What a session's end means for the item and the night, one shape per kind: a usage limit
 * carries when it resets, an outcome that pauses the night carries the reason.
 */
export type Outcome =
  | (OutcomeBase & { kind: 'rate_limited'; /** The limit's reset, epoch ms. */ waitUntil?: number })
  | (OutcomeBase & { kind: PausingKind; pauseReason: string })
  | (OutcomeBase & { kind: Exclude<OutcomeKind, 'rate_limited' | PausingKind> });

/** The facts a classification rests on. */
export interface SessionEnd {
  exit?: ExitStatus;
  stopReason?: StopReason;
  summary: StreamSummary;
  /** The last lines of stderr, for a crash's message. */
  stderrTail?: string;
  /** Whether the session resumed an earlier conversation. */
  resumed?: boolean;
  /** Whether it ran in ralph's sandbox (whose own failures are told apart from the agent's). */
  sandboxed?: boolean;
}

const TRANSIENT_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
const BAD_KEY = /api key not valid|invalid api key|incorrect api key/i;

type PlainKind = Exclude<OutcomeKind, 'rate_limited' | PausingKind>;

function failure(kind: PlainKind, message: string, extra: Partial<OutcomeBase> = {}): Outcome {
  return { kind, status: 'failed', message, retryable: true, countsAsFailure: true, ...extra };
}

/** A failure that pauses the night until a person acts; the item is not at fault. */
function pausing(kind: PausingKind, reason: string): Outcome {
  return {
    kind,
    status: 'failed',
    message: reason,
    retryable: false,
    countsAsFailure: false,
    pauseReason: reason,
  };
}

/**
 * A session cut short by a full disk: not the item's fault (its attempt is given back, it resumes
 * first). The loop's free-space check pauses the night if the disk is still full by then.
 */
export function diskFull(message: string): Outcome {
  return {
    kind: 'disk_full',
    status: 'interrupted',
    message: `interrupted: ${message}`,
    retryable: true,
    countsAsFailure: false,
  };
}

/** A successful session whose work failed a quality gate (or could not be committed). */
export function gateFailed(message: string, retryable = true): Outcome {
  return { kind: 'gate_failed', status: 'failed', message, retryable, countsAsFailure: true };
}

/** A successful session whose gates the runner's shutdown cut short. */
export function gatesStopped(): Outcome {
  return {
    kind: 'stopped',
    status: 'killed',
    message: 'the quality gates were stopped because the runner was shutting down',
    retryable: true,
    countsAsFailure: false,
  };
}

/**
 * Decides a session's outcome from the stream and the exit, trusting neither alone: the CLI
 * reports API errors and permission refusals with `subtype: "success"`, and an exit by signal
 * is never a success.
 */
export function classify(end: SessionEnd): Outcome {
  return (
    byStopReason(end.stopReason) ??
    byUsageLimit(end.summary) ??
    (end.summary.result === undefined ? withoutResult(end) : byResult(end, end.summary.result))
  );
}

/** The runner stopped the agent before any result: its reason decides. */
function byStopReason(stopReason: StopReason | undefined): Outcome | undefined {
  switch (stopReason) {
    case 'interrupt':
      return {
        kind: 'interrupted',
        status: 'interrupted',
        message: 'interrupted by request',
        retryable: true,
        countsAsFailure: false,
      };
    case 'shutdown':
      return {
        kind: 'stopped',
        status: 'killed',
        message: 'stopped because the runner was shutting down',
        retryable: true,
        countsAsFailure: false,
      };
    case 'requested':
      return {
        kind: 'stopped',
        status: 'killed',
        message: 'stopped by a person (ralph stop)',
        retryable: true,
        countsAsFailure: false,
      };
    case 'timeout':
    case 'idle_timeout':
      // Stopped before any result: a result line now is the CLI's answer to our SIGINT.
      return failure(
        stopReason,
        stopReason === 'timeout'
          ? 'killed: the session ran past its wall-clock timeout'
          : 'killed: no output for longer than the idle timeout',
        { status: 'timeout' },
      );
    case 'output_limit':
      return failure('output_limit', 'killed: the agent wrote more than the output cap', {
        retryable: false,
      });
    case 'disk_full':
      return diskFull('the disk ran low on space');
    case 'max_turns':
      return failure('max_turns', 'stopped by ralph: the agent went past its turn limit');
    case 'max_budget':
      return failure('max_budget', 'stopped by ralph: the session went past its budget', {
        retryable: false,
      });
    case 'after_result':
    case undefined:
      return undefined;
    default:
      return unreachable(stopReason);
  }
}

/** A rejected usage limit with no successful result: wait for its reset. */
function byUsageLimit(summary: StreamSummary): Outcome | undefined {
  const limit = summary.rateLimit;
  const result = summary.result;
  if (limit?.status !== 'rejected' || (result !== undefined && !result.isError)) return undefined;
  const resetsAt = limit.resetsAt === undefined ? undefined : limit.resetsAt * 1000;
  return {
    kind: 'rate_limited',
    status: 'failed',
    message: `usage limit reached${limit.rateLimitType ? ` (${limit.rateLimitType})` : ''}${
      resetsAt === undefined ? '' : `; resets at ${new Date(resetsAt).toISOString()}`
    }`,
    retryable: true,
    countsAsFailure: false,
    waitUntil: resetsAt,
  };
}

/**
 * What bubblewrap (`bwrap: …`, exit 1) or ralph's launcher inside (`ralph sandbox: …`) says when
 * the sandbox cannot be made or the agent cannot be started in it: nothing of the agent ran.
 */
const SANDBOX_FAILURE = /^(?:bwrap|ralph sandbox): .*/m;

/** The sandbox's own failure, before any agent output, or undefined. */
function sandboxFailure(end: SessionEnd): Outcome | undefined {
  if (end.sandboxed !== true || end.summary.events > 0 || end.exit?.code === 0) return undefined;
  const said = SANDBOX_FAILURE.exec(end.stderrTail ?? '')?.[0];
  if (said === undefined || ![1, 125, 126, 127].includes(end.exit?.code ?? -1)) return undefined;
  return pausing(
    'sandbox_failed',
    `ralph's sandbox could not be set up (${said.slice(0, 300)}): no attempt spent; run "ralph doctor", fix the sandbox settings or the CLI's command, then "ralph resume"`,
  );
}

/** No result line: a crash, or a kill from outside. */
function withoutResult(end: SessionEnd): Outcome {
  const failed = sandboxFailure(end);
  if (failed !== undefined) return failed;
  const tail = end.stderrTail?.trim();
  const detail = tail ? `: ${tail.split('\n').slice(-3).join(' | ').slice(0, 500)}` : '';
  if (end.exit?.signal)
    return failure(
      'signal_exit',
      `the agent was killed by ${end.exit.signal} before its result${detail}`,
    );
  return failure(
    'no_result',
    `the agent exited (code ${end.exit?.code ?? 'unknown'}) without a result line${detail}`,
  );
}

/** An API error in the result (the CLI still says `success`): auth, credit, or transient. */
function byApiError(result: ResultInfo): Outcome | undefined {
  if (
    !result.isError ||
    (result.apiErrorStatus === undefined && result.terminalReason !== 'api_error')
  )
    return undefined;
  const status = result.apiErrorStatus;
  const text = result.text ?? '';
  if (
    status === 401 ||
    status === 403 ||
    result.apiErrorType === 'authentication_error' ||
    // Gemini's API answers a bad key with a 400.
    BAD_KEY.test(text)
  )
    return pausing(
      'auth_error',
      `authentication failed (${status ?? result.apiErrorType}): ${text}`,
    );
  if (/credit balance/i.test(text)) return pausing('credit_exhausted', `credit exhausted: ${text}`);
  return failure('api_error', `API error${status === undefined ? '' : ` ${status}`}: ${text}`, {
    retryable: status === undefined || TRANSIENT_STATUSES.has(status),
  });
}

const NO_CONVERSATION = /no conversation found/i;

/** The result line, checked against the exit and the refusals it does not report as errors. */
function byResult(end: SessionEnd, result: ResultInfo): Outcome {
  const { exit, stopReason, summary } = end;
  const apiError = byApiError(result);
  if (apiError !== undefined) return apiError;
  if (
    end.resumed &&
    result.subtype === 'error_during_execution' &&
    (result.errors.some((e) => NO_CONVERSATION.test(e)) || NO_CONVERSATION.test(result.text ?? ''))
  ) {
    return failure(
      'resume_failed',
      'the interrupted claude session could not be resumed; starting afresh',
      {
        countsAsFailure: false,
      },
    );
  }
  switch (result.subtype) {
    case 'error_max_turns':
      return failure('max_turns', `reached the turn limit after ${result.numTurns ?? '?'} turns`);
    case 'error_max_budget_usd':
      return failure(
        'max_budget',
        `reached the budget limit ($${(result.totalCostUsd ?? 0).toFixed(4)} spent)`,
        { retryable: false },
      );
    case 'error_during_execution':
      return failure(
        'error_during_execution',
        `error during execution${result.errors.length > 0 ? `: ${result.errors.join('; ').slice(0, 500)}` : ''}`,
      );
    case 'success':
      break;
    default:
      return failure('error_during_execution', `the result says ${JSON.stringify(result.subtype)}`);
  }
  if (result.isError)
    return failure('api_error', `the result is an error: ${(result.text ?? '').slice(0, 500)}`);
  if (summary.permissionDenials.length > 0) {
    const tools = [...new Set(summary.permissionDenials.map((d) => d.toolName))].join(', ');
    // Not a failure of the night: its item waits for a person to allow the tools (needs_input).
    return failure('permission_denied', `tools refused by the permission mode: ${tools}`, {
      retryable: false,
      countsAsFailure: false,
    });
  }
  const lingered = stopReason === 'after_result';
  if (exit?.signal && !lingered)
    return failure('signal_exit', `the agent printed a result but was killed by ${exit.signal}`);
  if (exit?.code !== undefined && exit.code !== null && exit.code !== 0 && !lingered)
    return failure(
      'exit_error',
      `the agent printed a successful result but exited with code ${exit.code}`,
    );
  return {
    kind: 'success',
    status: 'completed',
    message:
      result.numTurns === undefined
        ? 'completed'
        : `completed in ${plural(result.numTurns, 'turn')}`,
    retryable: false,
    countsAsFailure: false,
  };
}
