import { formatDuration } from '../lib/duration.js';
import { plural } from '../lib/text.js';
import type { TokenUsage } from '../stream/events.js';
import type { ParsedLine } from '../stream/parser.js';
import { RESULT_CHARS, oneLine, summariseToolInput } from './transcript-rules.js';

export { summariseToolInput } from './transcript-rules.js';

/** How text is styled: ANSI colours on a terminal, plain otherwise. */
export interface Style {
  dim: (text: string) => string;
  bold: (text: string) => string;
  red: (text: string) => string;
  green: (text: string) => string;
  yellow: (text: string) => string;
  cyan: (text: string) => string;
}

const wrap = (open: number, close: number) => (text: string) =>
  `\x1b[${open}m${text}\x1b[${close}m`;
/** ANSI styling. */
export const COLOURS: Style = {
  dim: wrap(2, 22),
  bold: wrap(1, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
};
const same = (text: string) => text;
/** No styling. */
export const PLAIN: Style = {
  dim: same,
  bold: same,
  red: same,
  green: same,
  yellow: same,
  cyan: same,
};

/** `tokens: 1200 in, 800 cache read, 300 out · $0.0123`, as the CLI reported them. */
function usageLine(tokens: TokenUsage, costUsd: number | undefined): string {
  const parts = (
    [
      [tokens.inputTokens, 'in'],
      [tokens.cacheReadTokens, 'cache read'],
      [tokens.cacheCreationTokens, 'cache written'],
      [tokens.outputTokens, 'out'],
    ] as const
  ).flatMap(([count, what]) => (count === undefined ? [] : [`${count} ${what}`]));
  const cost = costUsd === undefined ? '' : ` · $${costUsd.toFixed(4)}`;
  return `tokens: ${parts.join(', ') || 'none reported'}${cost}`;
}

function initLine(parsed: Extract<ParsedLine, { kind: 'init' }>): string {
  return `── ${parsed.cli} session ${parsed.sessionId}${parsed.model ? ` · ${parsed.model}` : ''}${
    parsed.version ? ` · ${parsed.cli} ${parsed.version}` : ''
  }${parsed.cwd ? ` · ${parsed.cwd}` : ''}${parsed.permissionMode ? ` · ${parsed.permissionMode}` : ''}`;
}

function apiRetryLine(parsed: Extract<ParsedLine, { kind: 'api_retry' }>): string {
  return `↻ API retry ${parsed.attempt ?? '?'}/${parsed.maxRetries ?? '?'}${
    parsed.errorStatus === undefined ? '' : ` after ${parsed.errorStatus}`
  }${parsed.retryDelayMs === undefined ? '' : `, waiting ${formatDuration(parsed.retryDelayMs / 1000)}`}${
    parsed.error ? `: ${oneLine(parsed.error, 120)}` : ''
  }`;
}

function rateLimitLine(parsed: Extract<ParsedLine, { kind: 'rate_limit' }>): string {
  return `⏸ usage limit ${parsed.status}${parsed.rateLimitType ? ` (${parsed.rateLimitType})` : ''}${
    parsed.resetsAt === undefined
      ? ''
      : `, resets ${new Date(parsed.resetsAt * 1000).toISOString()}`
  }`;
}

/** The session's result: how it ended, what it cost, its errors and its last text. */
function resultLines(r: Extract<ParsedLine, { kind: 'result' }>['result'], s: Style): string[] {
  const ok = r.subtype === 'success' && !r.isError && r.permissionDenials.length === 0;
  const facts = [
    r.totalCostUsd === undefined ? undefined : `$${r.totalCostUsd.toFixed(4)}`,
    r.numTurns === undefined ? undefined : plural(r.numTurns, 'turn'),
    r.durationMs === undefined ? undefined : formatDuration(r.durationMs / 1000),
    r.apiErrorStatus === undefined ? undefined : `API error ${r.apiErrorStatus}`,
    r.permissionDenials.length > 0
      ? `denied: ${r.permissionDenials.map((d) => d.toolName).join(', ')}`
      : undefined,
  ].filter((f) => f !== undefined);
  const head = [`═ result: ${r.subtype}${r.isError ? ' (error)' : ''}`, ...facts].join(' · ');
  const lines = [ok ? s.green(head) : s.red(head)];
  for (const error of r.errors) lines.push(s.red(`  ${oneLine(error, RESULT_CHARS)}`));
  if (r.text) lines.push(`  ${r.text.trim()}`);
  return lines;
}

/**
 * Renders the parsed stream as a transcript people read: assistant text, each tool call with
 * its input in one line and its result (cut, errors marked), refusals, retries, limits and the
 * final result with cost, turns and time. Runs of partial-message deltas become one line; an
 * unknown event is one short line, never dropped and never a JSON dump.
 */
export class TranscriptRenderer {
  private deltas = 0;
  private readonly toolNames = new Map<string, string>();

  constructor(private readonly style: Style = PLAIN) {}

  /** The lines for one parsed stream line. */
  render(parsed: ParsedLine): string[] {
    if (parsed.kind === 'delta') {
      this.deltas++;
      return [];
    }
    return [...this.flushDeltas(), ...this.linesOf(parsed)];
  }

  private linesOf(parsed: Exclude<ParsedLine, { kind: 'delta' }>): string[] {
    const s = this.style;
    switch (parsed.kind) {
      case 'init':
        return [s.dim(initLine(parsed))];
      case 'assistant':
        return this.assistantLines(parsed);
      case 'tool_results':
        return this.toolResultLines(parsed);
      case 'permission_denied':
        return [s.red(`✗ permission denied: ${parsed.toolName ?? 'a tool'}`)];
      case 'api_retry':
        return [s.yellow(apiRetryLine(parsed))];
      case 'rate_limit':
        return [(parsed.status === 'rejected' ? s.red : s.dim)(rateLimitLine(parsed))];
      case 'result':
        return resultLines(parsed.result, s);
      case 'other':
        return [s.dim(`· ${parsed.type}${parsed.subtype ? `/${parsed.subtype}` : ''}`)];
      case 'issue':
        return [s.yellow(`! ${parsed.issue.replace(/_/g, ' ')}: ${parsed.detail}`)];
      case 'usage':
        return [s.dim(`· ${usageLine(parsed.tokens, parsed.costUsd)}`)];
      default: {
        // A kind added to the stream's events must be rendered here: this stops the build.
        const unrendered: never = parsed;
        return unrendered;
      }
    }
  }

  private assistantLines(parsed: Extract<ParsedLine, { kind: 'assistant' }>): string[] {
    const s = this.style;
    const lines = parsed.texts
      .filter((text) => text.trim() !== '')
      .map(
        (text) =>
          `${s.bold(parsed.synthetic ? 'claude (synthetic):' : 'assistant:')} ${text.trim()}`,
      );
    for (const tool of parsed.toolUses) {
      this.toolNames.set(tool.id, tool.name);
      lines.push(`${s.cyan(`→ ${tool.name}`)} ${summariseToolInput(tool.name, tool.input)}`);
    }
    return lines;
  }

  private toolResultLines(parsed: Extract<ParsedLine, { kind: 'tool_results' }>): string[] {
    const s = this.style;
    return parsed.results.map((result) => {
      const name = this.toolNames.get(result.toolUseId) ?? 'tool';
      const text = oneLine(result.text, RESULT_CHARS) || '(no output)';
      return result.isError ? s.red(`← ${name} error: ${text}`) : s.dim(`← ${name}: ${text}`);
    });
  }

  /** Lines still held back at the end of the stream. */
  finish(): string[] {
    return this.flushDeltas();
  }

  private flushDeltas(): string[] {
    if (this.deltas === 0) return [];
    const line = this.style.dim(
      `· ${this.deltas} partial-message delta${this.deltas === 1 ? '' : 's'}`,
    );
    this.deltas = 0;
    return [line];
  }
}
