import { addUsd } from '../lib/usd.js';
import { unreachable } from '../lib/errors.js';
import type { ParsedLine } from './parser.js';
import type { PermissionDenial, ResultInfo, TokenUsage } from './events.js';

/** A running account of a session's stream, small enough to write into the heartbeat. */
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
  permissionDenials: PermissionDenial[];
  issues: Record<string, number>;
  result?: ResultInfo;
  /** Tokens summed over `usage` events (CLIs that report usage apart from their messages). */
  tokens?: Required<Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens'>>;
  /** The cost the CLI itself reported in its `usage` events, summed. */
  reportedCostUsd?: number;
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

const LAST_TEXT_CHARS = 300;
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
      summary.assistantMessages++;
      summary.toolCalls += parsed.toolUses.length;
      const lastTool = parsed.toolUses.at(-1);
      if (lastTool !== undefined) summary.lastTool = lastTool.name;
      const text = parsed.texts.join('\n').trim();
      if (text !== '') summary.lastText = text.slice(0, LAST_TEXT_CHARS);
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
      if (parsed.utilization !== undefined)
        summary.usageWindow = {
          utilization: parsed.utilization,
          resetsAt: parsed.resetsAt,
          rateLimitType: parsed.rateLimitType,
        };
      if (parsed.status !== 'allowed' && parsed.status !== 'allowed_warning') {
        summary.rateLimit = {
          status: parsed.status,
          resetsAt: parsed.resetsAt,
          rateLimitType: parsed.rateLimitType,
        };
      }
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
    case 'usage': {
      const tokens = (summary.tokens ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 });
      tokens.inputTokens += parsed.tokens.inputTokens ?? 0;
      tokens.outputTokens += parsed.tokens.outputTokens ?? 0;
      tokens.cacheReadTokens += parsed.tokens.cacheReadTokens ?? 0;
      if (parsed.costUsd !== undefined)
        summary.reportedCostUsd = addUsd(summary.reportedCostUsd ?? 0, parsed.costUsd);
      break;
    }
    case 'delta':
    case 'other':
      break;
    default:
      unreachable(parsed);
  }
}

function addDenial(summary: StreamSummary, denial: PermissionDenial): void {
  const index = summary.permissionDenials.findIndex(
    (d) => d.toolUseId !== undefined && d.toolUseId === denial.toolUseId,
  );
  // The result line repeats the denials with their input: prefer its fuller record.
  if (index === -1) summary.permissionDenials.push(denial);
  else summary.permissionDenials[index] = { ...summary.permissionDenials[index], ...denial };
}
