import { addUsd } from '../lib/usd.js';
import { unreachable } from '../lib/errors.js';
import type { ParsedLine } from './parser.js';
import type { PermissionDenial, ResultInfo, TokenUsage } from './events.js';

/** A running account of a session's stream, small enough to write into the heartbeat. */
/** How much of a subscription's usage window is used (0–1), and when it resets (epoch seconds). */
export interface UsageWindow {
  utilization: number;
  resetsAt?: number;
}

export interface StreamSummary {
  events: number;
  assistantMessages: number;
  toolCalls: number;
  lastTool?: string;
  lastText?: string;
  /** When the last event was read (epoch ms). */
  lastEventAtMs?: number;
  conversationId?: string;
  model?: string;
  cliVersion?: string;
  apiRetries: number;
  lastApiRetry?: { attempt?: number; errorStatus?: number; error?: string };
  /** The last `rate_limit_event` that was not allowed (status other than "allowed"). */
  rateLimit?: { status: string; resetsAt?: number; rateLimitType?: string };
  /** The last report of how much of its usage window the subscription has used. */
  usageWindow?: { utilization: number; resetsAt?: number; rateLimitType?: string };
  /** The last report of each window (`five_hour`, `seven_day`, …): what the night plan reads. */
  usageWindows?: Record<string, UsageWindow>;
  permissionDenials: PermissionDenial[];
  issues: Record<string, number>;
  result?: ResultInfo;
  /** Tokens summed over `usage` events (CLIs that report usage apart from their messages). */
  tokens?: Required<Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens'>>;
  /** The cost the CLI itself reported in its `usage` events, summed. */
  reportedCostUsd?: number;
  /** What the session spent before it worked (CLIs that give each message's usage: claude). */
  opening?: Opening;
}

/**
 * The tokens of a session's model requests up to the one that made its first tool call (that
 * one included): the system prompt, the tools and the task read before any work.
 */
export interface Opening {
  /** Summed over the messages before the last one seen. */
  earlier: Required<TokenUsage>;
  /** The last message seen: its lines (a line a content block) each repeat its usage. */
  last?: { id?: string; usage: TokenUsage };
  /** Whether the first tool call was seen: the opening is complete. */
  toolCalled: boolean;
}

const noTokens = (): Required<TokenUsage> => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
});

function addTokens(sum: Required<TokenUsage>, tokens: TokenUsage): void {
  sum.inputTokens += tokens.inputTokens ?? 0;
  sum.outputTokens += tokens.outputTokens ?? 0;
  sum.cacheReadTokens += tokens.cacheReadTokens ?? 0;
  sum.cacheCreationTokens += tokens.cacheCreationTokens ?? 0;
}

/** The opening's tokens: the earlier messages' and the last one's. */
export function openingTokens(opening: Opening): Required<TokenUsage> {
  const sum = { ...opening.earlier };
  if (opening.last !== undefined) addTokens(sum, opening.last.usage);
  return sum;
}

/** Folds an assistant message's usage into the opening, until its first tool call. */
function foldOpening(
  summary: StreamSummary,
  message: { messageId?: string; usage?: TokenUsage; toolUses: unknown[] },
): void {
  const opening = (summary.opening ??= { earlier: noTokens(), toolCalled: false });
  if (opening.toolCalled) return;
  if (message.usage !== undefined) {
    const { last } = opening;
    // A new message (or one without an id, a line each) moves the last one into the sum.
    if (last !== undefined && (last.id === undefined || last.id !== message.messageId))
      addTokens(opening.earlier, last.usage);
    opening.last = { id: message.messageId, usage: message.usage };
  }
  if (message.toolUses.length > 0) opening.toolCalled = true;
}

/** A new, empty summary. */
export function emptySummary(): StreamSummary {
  return {
    events: 0,
    assistantMessages: 0,
    toolCalls: 0,
    apiRetries: 0,
    permissionDenials: [],
    issues: {},
  };
}

/**
 * The agent's last message is kept whole up to this (its tail beyond it): a reviewer's verdict
 * of several kilobytes is read from it when the CLI's result line carries no text (codex,
 * gemini, opencode, pi). A message is kept, not written on every heartbeat.
 */
const LAST_TEXT_CHARS = 256 * 1024;
const DISABLED_TOOL = /No such tool available: ([A-Za-z0-9_]+(?:__[A-Za-z0-9_-]+)*)/;

/** Folds one parsed line into the summary (mutates it: this runs on every line). */
export function applyToSummary(summary: StreamSummary, parsed: ParsedLine, now: number): void {
  if (parsed.kind === 'issue') {
    summary.issues[parsed.issue] = (summary.issues[parsed.issue] ?? 0) + 1;
    return;
  }
  summary.events++;
  summary.lastEventAtMs = now;
  switch (parsed.kind) {
    case 'init':
      summary.conversationId = parsed.sessionId;
      summary.model = parsed.model;
      summary.cliVersion = parsed.version;
      break;
    case 'assistant': {
      if (!parsed.synthetic && (parsed.usage !== undefined || summary.opening !== undefined))
        foldOpening(summary, parsed);
      summary.assistantMessages++;
      summary.toolCalls += parsed.toolUses.length;
      const lastTool = parsed.toolUses.at(-1);
      if (lastTool !== undefined) summary.lastTool = lastTool.name;
      const text = parsed.texts.join('\n').trim();
      if (text !== '') summary.lastText = text.slice(-LAST_TEXT_CHARS);
      break;
    }
    case 'result':
      summary.result = parsed.result;
      summary.conversationId ??= parsed.result.sessionId;
      for (const denial of parsed.result.permissionDenials) addDenial(summary, denial);
      break;
    case 'permission_denied':
      if (parsed.toolName !== undefined) {
        addDenial(summary, { toolName: parsed.toolName, toolUseId: parsed.toolUseId });
      }
      break;
    case 'rate_limit':
      foldRateLimit(summary, parsed);
      break;
    case 'api_retry':
      summary.apiRetries++;
      summary.lastApiRetry = {
        attempt: parsed.attempt,
        errorStatus: parsed.errorStatus,
        error: parsed.error,
      };
      break;
    case 'tool_results':
      // A tool removed by --tools or --disallowedTools is refused as "No such tool available",
      // not as a permission denial: it is a refusal all the same.
      for (const result of parsed.results) {
        const disabled = result.isError ? DISABLED_TOOL.exec(result.text) : null;
        if (disabled?.[1] !== undefined)
          addDenial(summary, { toolName: disabled[1], toolUseId: result.toolUseId });
      }
      break;
    case 'usage':
      foldUsage(summary, parsed);
      break;
    case 'delta':
    case 'other':
      break;
    default:
      unreachable(parsed);
  }
}

/** A usage limit's window (how much is used) and, once it holds, the limit itself. */
function foldRateLimit(
  summary: StreamSummary,
  parsed: Extract<ParsedLine, { kind: 'rate_limit' }>,
): void {
  if (parsed.utilization !== undefined) {
    summary.usageWindow = {
      utilization: parsed.utilization,
      resetsAt: parsed.resetsAt,
      rateLimitType: parsed.rateLimitType,
    };
    (summary.usageWindows ??= {})[parsed.rateLimitType ?? 'usage'] = {
      utilization: parsed.utilization,
      resetsAt: parsed.resetsAt,
    };
  }
  if (parsed.status !== 'allowed' && parsed.status !== 'allowed_warning')
    summary.rateLimit = {
      status: parsed.status,
      resetsAt: parsed.resetsAt,
      rateLimitType: parsed.rateLimitType,
    };
}

/** Tokens added up, and the cost a CLI reports as it goes. */
function foldUsage(summary: StreamSummary, parsed: Extract<ParsedLine, { kind: 'usage' }>): void {
  const tokens = (summary.tokens ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 });
  tokens.inputTokens += parsed.tokens.inputTokens ?? 0;
  tokens.outputTokens += parsed.tokens.outputTokens ?? 0;
  tokens.cacheReadTokens += parsed.tokens.cacheReadTokens ?? 0;
  if (parsed.costUsd !== undefined)
    summary.reportedCostUsd = addUsd(summary.reportedCostUsd ?? 0, parsed.costUsd);
}

function addDenial(summary: StreamSummary, denial: PermissionDenial): void {
  const index = summary.permissionDenials.findIndex(
    (d) => d.toolUseId !== undefined && d.toolUseId === denial.toolUseId,
  );
  // The result line repeats the denials with their input: prefer its fuller record.
  if (index === -1) summary.permissionDenials.push(denial);
  else summary.permissionDenials[index] = { ...summary.permissionDenials[index], ...denial };
}
