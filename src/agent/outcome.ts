import { plural } from '../lib/text.js';
import type { StreamSummary } from '../stream/summary.js';
import type { ExitStatus } from './process.js';

/** Why the runner itself ended a session, if it did. */
export type StopReason =
  | 'timeout'
  | 'idle_timeout'
  | 'interrupt'
  | 'shutdown'
  /** The agent printed `result` but did not exit within the grace. */
  | 'after_result'
  /** The agent wrote more than the output cap. */
  | 'output_limit'
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
  /** `--resume` found no conversation: the item starts afresh, no attempt spent. */
  'resume_failed',
] as const;

export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

/** The lifecycle state a session record ends in (seed 003 section 2.2). */
export type FinalSessionStatus = 'completed' | 'failed' | 'timeout' | 'interrupted' | 'killed';

/** What a session's end means for the item and the night. */
export interface Outcome {
  kind: OutcomeKind;
  status: FinalSessionStatus;
  /** One line for people. */
  message: string;
  /** Whether another attempt may do better (a failure that is not the configuration's). */
  retryable: boolean;
  /** Whether it counts towards the consecutive-failure circuit breaker. */
  countsAsFailure: boolean;
  /** Until when to wait before going on (a usage limit's reset), epoch ms. */
  waitUntil?: number;
  /** A reason to pause the whole night (credit exhausted, authentication failed). */
  pauseReason?: string;
}

/** The facts a classification rests on. */
export interface SessionEnd {
  exit?: ExitStatus;
  stopReason?: StopReason;
  summary: StreamSummary;
  /** The last lines of stderr, for a crash's message. */
  stderrTail?: string;
  /** Whether the session resumed an earlier claude session. */
  resumed?: boolean;
}

const TRANSIENT_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

function failure(kind: OutcomeKind, message: string, extra: Partial<Outcome> = {}): Outcome {
  return { kind, status: 'failed', message, retryable: true, countsAsFailure: true, ...extra };
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

/**
 * Decides a session's outcome from the stream and the exit, trusting neither alone: the CLI
 * reports API errors and permission refusals with `subtype: "success"`, and an exit by signal
 * is never a success.
 */
export function classify(end: SessionEnd): Outcome {
  const { summary, exit, stopReason } = end;
  const result = summary.result;
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
    case 'after_result':
    case undefined:
      break;
  }

  const limit = summary.rateLimit;
  if (limit?.status === 'rejected' && (result === undefined || result.isError)) {
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

  if (result === undefined) {
    const tail = end.stderrTail?.trim();
    const detail = tail ? `: ${tail.split('\n').slice(-3).join(' | ').slice(0, 500)}` : '';
    if (exit?.signal)
      return failure(
        'signal_exit',
        `the agent was killed by ${exit.signal} before its result${detail}`,
      );
    return failure(
      'no_result',
      `the agent exited (code ${exit?.code ?? 'unknown'}) without a result line${detail}`,
    );
  }

  if (
    result.isError &&
    (result.apiErrorStatus !== undefined || result.terminalReason === 'api_error')
  ) {
    const status = result.apiErrorStatus;
    const text = result.text ?? '';
    if (status === 401 || status === 403 || result.apiErrorType === 'authentication_error') {
      const reason = `authentication failed (${status ?? result.apiErrorType}): ${text}`;
      return failure('auth_error', reason, {
        retryable: false,
        countsAsFailure: false,
        pauseReason: reason,
      });
    }
    if (/credit balance/i.test(text)) {
      const reason = `credit exhausted: ${text}`;
      return failure('credit_exhausted', reason, {
        retryable: false,
        countsAsFailure: false,
        pauseReason: reason,
      });
    }
    return failure('api_error', `API error${status === undefined ? '' : ` ${status}`}: ${text}`, {
      retryable: status === undefined || TRANSIENT_STATUSES.has(status),
    });
  }

  const noConversation = /no conversation found/i;
  if (
    end.resumed &&
    result.subtype === 'error_during_execution' &&
    (result.errors.some((e) => noConversation.test(e)) || noConversation.test(result.text ?? ''))
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
        {
          retryable: false,
        },
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

  if (result.isError) {
    return failure('api_error', `the result is an error: ${(result.text ?? '').slice(0, 500)}`);
  }
  if (summary.permissionDenials.length > 0) {
    const tools = [...new Set(summary.permissionDenials.map((d) => d.toolName))].join(', ');
    return failure('permission_denied', `tools refused by the permission mode: ${tools}`, {
      retryable: false,
    });
  }
  if (exit?.signal && stopReason !== 'after_result') {
    return failure('signal_exit', `the agent printed a result but was killed by ${exit.signal}`);
  }
  if (
    exit?.code !== undefined &&
    exit.code !== null &&
    exit.code !== 0 &&
    stopReason !== 'after_result'
  ) {
    return failure(
      'exit_error',
      `the agent printed a successful result but exited with code ${exit.code}`,
    );
  }
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
