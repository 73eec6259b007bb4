import type { SessionSettings } from '../../config/schema.js';
import type { Decoded } from '../../stream/decoder.js';
import type { ResultInfo, TokenUsage } from '../../stream/events.js';
import type { ResolvedSettings } from '../settings.js';
import type { AgentCli } from './cli.js';

/** Tool rules are claude's syntax: a CLI without per-tool rules refuses an item that sets them. */
export function toolRuleRefusals(name: string, explicit: SessionSettings): string[] {
  const set = (['tools', 'allowedTools', 'disallowedTools'] as const).filter(
    (key) => explicit[key] !== undefined,
  );
  return set.length === 0
    ? []
    : [
        `${name} has no per-tool rules, so ${set.join(', ')} cannot be honoured (its permission mode decides what it may do)`,
      ];
}

/** A limit the item or persona sets that nobody can hold the CLI to while it runs. */
export function limitRefusals(
  cli: Pick<AgentCli, 'name' | 'enforces'>,
  explicit: SessionSettings,
): string[] {
  const refusals: string[] = [];
  if (cli.enforces.maxTurns === 'none' && explicit.maxTurns !== undefined)
    refusals.push(`${cli.name} cannot be held to a turn limit, so maxTurns cannot be honoured`);
  if (cli.enforces.budget === 'none' && explicit.maxBudgetUsd !== undefined)
    refusals.push(
      `${cli.name} reports its usage only when it ends, so maxBudgetUsd cannot be honoured while it runs`,
    );
  return refusals;
}

/** "bypassPermissions" needs the workspace's yolo, whichever CLI runs. */
export function wantsBypass(settings: ResolvedSettings, yolo: boolean): boolean {
  return yolo || settings.permissionMode === 'bypassPermissions';
}

/**
 * Whether a `lean` session is offered only what its rules allow: under the modes that refuse
 * the rest anyway (`dontAsk`, and `acceptEdits`, which allows edits). A session that bypasses
 * the rules (`yolo`) keeps everything; each CLI checks that first.
 */
export function trimsTools(settings: ResolvedSettings): boolean {
  return (
    settings.lean &&
    (settings.permissionMode === 'dontAsk' || settings.permissionMode === 'acceptEdits')
  );
}

/** A synthesized result line for a CLI that prints none of claude's shape. */
export function resultOf(fields: Partial<ResultInfo> & { subtype: string }): ResultInfo {
  return { isError: false, permissionDenials: [], errors: [], ...fields };
}

/** Counts from a record of numbers, under the names ralph uses. */
export function tokensOf(
  usage: unknown,
  names: { input: string; output: string; cacheRead?: string },
): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const count = (name: string | undefined) =>
    name !== undefined && typeof u[name] === 'number' ? u[name] : undefined;
  const tokens: TokenUsage = {
    inputTokens: count(names.input),
    outputTokens: count(names.output),
    cacheReadTokens: count(names.cacheRead),
  };
  return tokens.inputTokens === undefined && tokens.outputTokens === undefined ? undefined : tokens;
}

/**
 * The HTTP status an error message names ("unexpected status 401 …", "last status: 429 …", an
 * API's JSON error body quoted in it: `"code":500`, or a message that starts with it: "429 …").
 */
export function statusIn(message: string): number | undefined {
  const match = /(?:\bstatus(?: code)?:?\s*|\bHTTP\s+|"code":\s*|^)(\d{3})\b/i.exec(message);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

const RATE_LIMITED = /\b429\b|too many requests|rate.?limit|usage limit|quota|resource.?exhausted/i;

/**
 * Whether an error is a rate or usage limit (waited out, never the item's failure): a 429, or
 * words that say so when the message names no status.
 */
export function isRateLimit(message: string, status: number | undefined): boolean {
  return status === undefined ? RATE_LIMITED.test(message) : status === 429;
}

/** A claude tool rule (`Bash`, `Bash(git *)`, `Edit(./**)`) as its tool and its argument. */
export function ruleParts(rule: string): { tool: string; argument?: string } {
  const match = /^([A-Za-z]+)(?:\((.*)\))?$/.exec(rule.trim());
  return match === null ? { tool: rule } : { tool: match[1] ?? rule, argument: match[2] };
}

/** A `Bash(…)` argument as a command prefix: `git *`, `git:*` and `git` all mean "starts with git". */
export const commandPrefix = (argument: string) => argument.replace(/(?::\*|\s\*|\*)$/, '').trim();

/** A CLI's tools (or permission keys) for claude's tool names; reading tools map to none. */
export type ToolMap = Readonly<Record<string, readonly string[]>>;

const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit']);

/** Why a claude rule cannot be said in another CLI's terms, if it cannot. */
function ruleProblem(cli: string, tools: ToolMap, rule: string): string | undefined {
  const { tool, argument } = ruleParts(rule);
  if (tools[tool] === undefined) return `${cli} has no tool for the rule "${rule}"`;
  if (argument === undefined || tool === 'Bash') return undefined;
  // Its file tools are held to the work dir already: no other path can be said.
  if (EDIT_TOOLS.has(tool) && argument === './**') return undefined;
  return `${cli} cannot limit ${tool} to "${argument}" (only "./**", its work dir)`;
}

/**
 * What a CLI that maps claude's rules onto its own cannot honour: a rule it has no tool for, a
 * path other than the work dir, and `tools` (it can deny a tool, not remove it).
 */
export function mappedRuleRefusals(
  cli: Pick<AgentCli, 'name' | 'enforces'>,
  tools: ToolMap,
  settings: ResolvedSettings,
  explicit: SessionSettings,
): string[] {
  const refusals = limitRefusals(cli, explicit);
  if (explicit.tools !== undefined)
    refusals.push(
      `${cli.name} cannot remove tools, so tools cannot be honoured (use disallowedTools)`,
    );
  for (const rule of [...settings.allowedTools, ...settings.disallowedTools]) {
    const problem = ruleProblem(cli.name, tools, rule);
    if (problem !== undefined) refusals.push(problem);
  }
  return refusals;
}

/** A line of a CLI's stream, read field by field. */
export type Line = Record<string, unknown>;
export const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
export const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
export const obj = (value: unknown): Line =>
  typeof value === 'object' && value !== null ? (value as Line) : {};

/** The line as an object, or the issue of one that is not. */
export function lineOf(value: unknown, bytes: number): Line | Decoded {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Line)
    : { kind: 'issue', issue: 'schema', detail: 'a line that is not a JSON object', bytes };
}

/**
 * A run that ended on an error: a rate limit when the error is one, and the failed result
 * (`apiError`: the model's API failed, which classification reads as retryable or pausing).
 */
export function failedRun(
  message: string,
  fields: { sessionId?: string; status?: number; apiErrorType?: string; apiError: boolean },
): Decoded[] {
  const status = fields.status ?? statusIn(message);
  return [
    ...(isRateLimit(message, status) ? [{ kind: 'rate_limit' as const, status: 'rejected' }] : []),
    {
      kind: 'result',
      result: resultOf({
        subtype: 'error_during_execution',
        isError: true,
        text: message,
        sessionId: fields.sessionId,
        apiErrorStatus: status,
        apiErrorType: fields.apiErrorType,
        terminalReason: fields.apiError ? 'api_error' : undefined,
        errors: [message],
      }),
    },
  ];
}

/** The host of a CLI's base-URL setting when it has one, else its vendor's hosts. */
export function apiHostOf(baseUrl: string | undefined, ...vendor: string[]): string[] {
  const host = baseUrl === undefined ? undefined : hostOfUrl(baseUrl);
  return host === undefined ? vendor : [host];
}

/** The host and port of a base URL (`https://api.example.com/v1` → `api.example.com:443`). */
function hostOfUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port !== '' ? parsed.port : parsed.protocol === 'http:' ? '80' : '443';
    return `${parsed.hostname.replace(/^\[(.*)\]$/, '$1')}:${port}`;
  } catch {
    return undefined;
  }
}
