import * as z from '../../lib/zod.js';
import type { Decoded, StreamDecoder } from '../../stream/decoder.js';
import type { StreamIssue, TokenUsage, ToolResult, ToolUse } from '../../stream/events.js';

// claude's stream-json (`--output-format stream-json --verbose`), decoded into ralph's events.

/** What is kept of a tool's output or an error: the gist, not the whole. */
const TEXT_CAP = 4096;
/**
 * What is kept of the agent's own words (its messages, its result, its structured output): a
 * reviewer's verdict of several kilobytes is read whole from them.
 */
const ANSWER_CAP = 256 * 1024;
const capAt = (limit: number) => (text: string) =>
  text.length > limit ? `${text.slice(0, limit)}…[cut: ${text.length - limit} more chars]` : text;
const cap = capAt(TEXT_CAP);
const capAnswer = capAt(ANSWER_CAP);

const num = z.number().optional().catch(undefined);
const str = z.string().optional().catch(undefined);

const InitSchema = z.looseObject({
  session_id: z.string(),
  model: str,
  tools: z.array(z.string()).catch([]),
  cwd: str,
  claude_code_version: str,
  permissionMode: str,
});

type Block = Record<string, unknown> & { type: string };

/**
 * Reads the `message` of an assistant or user line. These are most of a stream's lines, so
 * they are checked by hand rather than through a schema (which copies every object): a
 * message must be an object; content blocks without a string `type` are ignored.
 */
function readMessage(
  record: Record<string, unknown>,
): { id?: string; model?: string; blocks: Block[]; usage?: TokenUsage } | string {
  const message = record.message;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return 'message: expected an object';
  }
  const { id, model, content, usage } = message as {
    id?: unknown;
    model?: unknown;
    content?: unknown;
    usage?: unknown;
  };
  const blocks =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? content.filter(
            (b): b is Block =>
              typeof b === 'object' &&
              b !== null &&
              typeof (b as { type?: unknown }).type === 'string',
          )
        : [];
  return {
    id: typeof id === 'string' ? id : undefined,
    model: typeof model === 'string' ? model : undefined,
    blocks,
    usage: tokenUsage(usage),
  };
}

/** The token counts of a message's `usage`, numbers only; undefined when it has none. */
function tokenUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const count = (value: unknown) => (typeof value === 'number' ? value : undefined);
  const tokens: TokenUsage = {
    inputTokens: count(u.input_tokens),
    outputTokens: count(u.output_tokens),
    cacheReadTokens: count(u.cache_read_input_tokens),
    cacheCreationTokens: count(u.cache_creation_input_tokens),
  };
  return Object.values(tokens).some((v) => v !== undefined) ? tokens : undefined;
}

const ResultSchema = z.looseObject({
  subtype: z.string(),
  is_error: z.boolean().catch(false),
  result: str,
  total_cost_usd: num,
  num_turns: num,
  duration_ms: num,
  session_id: str,
  usage: z.record(z.string(), z.unknown()).optional().catch(undefined),
  permission_denials: z
    .array(
      z.looseObject({
        tool_name: z.string(),
        tool_use_id: str,
        tool_input: z.unknown().optional(),
      }),
    )
    .catch([]),
  api_error_status: z.number().nullish().catch(undefined),
  api_error_type: z.string().nullish().catch(undefined),
  terminal_reason: str,
  errors: z.array(z.unknown()).catch([]),
  structured_output: z.unknown().optional(),
});

const RateLimitSchema = z.looseObject({
  rate_limit_info: z.looseObject({
    status: z.string(),
    resetsAt: num,
    rateLimitType: str,
    /** The share of the window used (0–1), in a warning that it is running out. */
    utilization: num,
  }),
});

const ApiRetrySchema = z.looseObject({
  attempt: num,
  max_retries: num,
  retry_delay_ms: num,
  error_status: z.number().nullish().catch(undefined),
  error: z.unknown().optional(),
});

type Parsed = Decoded;

function schemaIssue(type: string, error: z.ZodError, bytes: number): StreamIssue {
  const first = error.issues[0];
  const where =
    first === undefined ? '' : ` at ${first.path.join('.') || '(top)'}: ${first.message}`;
  return { kind: 'issue', issue: 'schema', detail: `${type} line${where}`, bytes };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'object' &&
        part !== null &&
        typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

type Line = Record<string, unknown>;

function systemEvent(record: Line, subtype: string | undefined, bytes: number): Parsed {
  if (subtype === 'init') {
    const parsed = InitSchema.safeParse(record);
    if (!parsed.success) return schemaIssue('system/init', parsed.error, bytes);
    const d = parsed.data;
    return {
      kind: 'init',
      cli: 'claude',
      sessionId: d.session_id,
      model: d.model,
      tools: d.tools,
      cwd: d.cwd,
      version: d.claude_code_version,
      permissionMode: d.permissionMode,
    };
  }
  if (subtype === 'api_retry') {
    const d = ApiRetrySchema.parse(record);
    return {
      kind: 'api_retry',
      attempt: d.attempt,
      maxRetries: d.max_retries,
      retryDelayMs: d.retry_delay_ms,
      errorStatus: d.error_status ?? undefined,
      error:
        typeof d.error === 'string'
          ? d.error
          : d.error === undefined
            ? undefined
            : JSON.stringify(d.error),
    };
  }
  if (subtype === 'permission_denied') {
    return {
      kind: 'permission_denied',
      toolName: typeof record.tool_name === 'string' ? record.tool_name : undefined,
      toolUseId: typeof record.tool_use_id === 'string' ? record.tool_use_id : undefined,
      message: typeof record.message === 'string' ? cap(record.message) : undefined,
    };
  }
  return { kind: 'other', type: 'system', subtype };
}

function assistantEvent(record: Line, bytes: number): Parsed {
  const message = readMessage(record);
  if (typeof message === 'string')
    return { kind: 'issue', issue: 'schema', detail: `assistant line at ${message}`, bytes };
  const { id, blocks, model, usage } = message;
  const texts: string[] = [];
  const toolUses: ToolUse[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(capAnswer(block.text));
    if (block.type === 'tool_use') {
      toolUses.push({
        id: typeof block.id === 'string' ? block.id : '',
        name: typeof block.name === 'string' ? block.name : '(unnamed tool)',
        input: block.input,
      });
    }
  }
  return {
    kind: 'assistant',
    ...(id === undefined ? {} : { messageId: id }),
    model,
    texts,
    toolUses,
    synthetic: model === '<synthetic>',
    ...(usage === undefined ? {} : { usage }),
  };
}

function userEvent(record: Line, bytes: number): Parsed {
  const message = readMessage(record);
  if (typeof message === 'string')
    return { kind: 'issue', issue: 'schema', detail: `user line at ${message}`, bytes };
  const results: ToolResult[] = [];
  for (const block of message.blocks) {
    if (block.type !== 'tool_result') continue;
    results.push({
      toolUseId: typeof block.tool_use_id === 'string' ? block.tool_use_id : '',
      isError: block.is_error === true,
      text: cap(textOf(block.content)),
    });
  }
  return results.length > 0 ? { kind: 'tool_results', results } : { kind: 'other', type: 'user' };
}

function resultEvent(record: Line, bytes: number): Parsed {
  const parsed = ResultSchema.safeParse(record);
  if (!parsed.success) return schemaIssue('result', parsed.error, bytes);
  const d = parsed.data;
  return {
    kind: 'result',
    result: {
      subtype: d.subtype,
      isError: d.is_error,
      text: d.result === undefined ? undefined : capAnswer(d.result),
      structuredOutput:
        d.structured_output === undefined
          ? undefined
          : capAnswer(JSON.stringify(d.structured_output)),
      totalCostUsd: d.total_cost_usd,
      numTurns: d.num_turns,
      durationMs: d.duration_ms,
      sessionId: d.session_id,
      usage: d.usage,
      permissionDenials: d.permission_denials.map((p) => ({
        toolName: p.tool_name,
        toolUseId: p.tool_use_id,
        toolInput: p.tool_input,
      })),
      apiErrorStatus: d.api_error_status ?? undefined,
      apiErrorType: d.api_error_type ?? undefined,
      terminalReason: d.terminal_reason,
      errors: d.errors.map((e) => cap(typeof e === 'string' ? e : JSON.stringify(e))),
    },
  };
}

function rateLimitEvent(record: Line, bytes: number): Parsed {
  const parsed = RateLimitSchema.safeParse(record);
  if (!parsed.success) return schemaIssue('rate_limit_event', parsed.error, bytes);
  const info = parsed.data.rate_limit_info;
  return {
    kind: 'rate_limit',
    status: info.status,
    resetsAt: info.resetsAt,
    rateLimitType: info.rateLimitType,
    utilization: info.utilization,
  };
}

/** Maps one decoded JSON value of claude's stream-json to an event, tolerating unknown shapes. */
export function claudeEvent(value: unknown, bytes: number): Parsed {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'issue', issue: 'schema', detail: 'a line that is not a JSON object', bytes };
  }
  const record = value as Line;
  const type = typeof record.type === 'string' ? record.type : undefined;
  const subtype = typeof record.subtype === 'string' ? record.subtype : undefined;
  if (type === undefined) {
    return { kind: 'issue', issue: 'schema', detail: 'a line without a "type"', bytes };
  }
  switch (type) {
    case 'system':
      return systemEvent(record, subtype, bytes);
    case 'assistant':
      return assistantEvent(record, bytes);
    case 'user':
      return userEvent(record, bytes);
    case 'result':
      return resultEvent(record, bytes);
    case 'rate_limit_event':
      return rateLimitEvent(record, bytes);
    case 'stream_event':
      return { kind: 'delta' };
    default:
      return { kind: 'other', type, subtype };
  }
}

/** claude's stream-json: one event per line, no state. */
const CLAUDE_DECODER: StreamDecoder = { decode: claudeEvent };

/** The decoder of claude's stream-json. */
export const claudeDecoder = (): StreamDecoder => CLAUDE_DECODER;
