/** A tool call the model made. */
export interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}

/** A tool's answer, as the CLI fed it back to the model. */
export interface ToolResult {
  toolUseId: string;
  isError: boolean;
  text: string;
}

/** Tokens of one assistant message. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
}

/** A tool refused by the permission mode, as the `result` line lists it. */
export interface PermissionDenial {
  toolName: string;
  toolUseId?: string;
  toolInput?: unknown;
}

/** The fields of the `result` line the runner decides on. */
export interface ResultInfo {
  subtype: string;
  isError: boolean;
  text?: string;
  /** The answer in the shape it was held to (claude's `--json-schema`), as JSON text. */
  structuredOutput?: string;
  totalCostUsd?: number;
  numTurns?: number;
  durationMs?: number;
  sessionId?: string;
  usage?: Record<string, unknown>;
  permissionDenials: PermissionDenial[];
  apiErrorStatus?: number;
  apiErrorType?: string;
  terminalReason?: string;
  errors: string[];
}

/** One understood line of claude's stream-json. */
export type StreamEvent =
  | {
      kind: 'init';
      /** The agent CLI whose stream this is. */
      cli: string;
      sessionId: string;
      model?: string;
      tools: string[];
      cwd?: string;
      version?: string;
      permissionMode?: string;
    }
  | {
      kind: 'assistant';
      /** The model's message this line is of: claude gives each content block a line of its own. */
      messageId?: string;
      model?: string;
      texts: string[];
      toolUses: ToolUse[];
      synthetic: boolean;
      /** The message's token counts, as the API reported them. */
      usage?: TokenUsage;
    }
  | { kind: 'tool_results'; results: ToolResult[] }
  | { kind: 'result'; result: ResultInfo }
  | {
      kind: 'rate_limit';
      status: string;
      /** Epoch seconds. */
      resetsAt?: number;
      rateLimitType?: string;
      /** The share of the usage window used (0–1), when the CLI reports it. */
      utilization?: number;
    }
  | {
      kind: 'api_retry';
      attempt?: number;
      maxRetries?: number;
      retryDelayMs?: number;
      errorStatus?: number;
      error?: string;
    }
  | { kind: 'permission_denied'; toolName?: string; toolUseId?: string; message?: string }
  /**
   * Tokens of one model request (or of a whole turn, for a CLI that reports no finer), from a
   * CLI that reports them apart from its messages; `costUsd` when the CLI prices them itself.
   */
  | { kind: 'usage'; tokens: TokenUsage; costUsd?: number }
  /** A partial-message delta (`--include-partial-messages`). */
  | { kind: 'delta' }
  /** A line of a type this version does not model: kept in the archive, shown briefly. */
  | { kind: 'other'; type: string; subtype?: string };

/** A line the parser could not use; the archive still holds its bytes. */
export interface StreamIssue {
  kind: 'issue';
  issue: 'invalid_json' | 'schema' | 'oversize' | 'truncated' | 'too_deep' | 'invalid_utf8';
  detail: string;
  bytes: number;
}
