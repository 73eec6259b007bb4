import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { StreamDecoder, Decoded } from '../../stream/decoder.js';
import type { ResolvedSettings } from '../settings.js';
import type { AgentCli, CliCommand, Invocation } from './cli.js';
import {
  limitRefusals,
  resultOf,
  statusIn,
  tokensOf,
  toolRuleRefusals,
  trimsTools,
  wantsBypass,
  failedRun,
  lineOf,
  str,
  type Line,
  apiHostOf,
} from './common.js';

/**
 * The sandbox of a permission mode: `plan` reads only; every other mode may write in the work
 * dir (and nowhere else, with no network); bypass is codex's own no-sandbox flag. Inside ralph's
 * sandbox, which is the wall (the work dir alone writable, egress to the allowed hosts alone),
 * codex's own is off: its bubblewrap cannot make a user namespace inside another.
 */
function sandboxOf(
  settings: ResolvedSettings,
  sandboxed: boolean,
): 'read-only' | 'workspace-write' | 'danger-full-access' {
  if (settings.permissionMode === 'plan') return 'read-only';
  return sandboxed ? 'danger-full-access' : 'workspace-write';
}

/** Where codex keeps its state: `$CODEX_HOME`, else `~/.codex`. */
function codexHome(env: Readonly<Record<string, string | undefined>>): string {
  return env.CODEX_HOME ?? path.join(env.HOME ?? os.homedir(), '.codex');
}

/**
 * codex's bubblewrap sandbox (taken whenever `bwrap` is installed) mounts an empty `$TMPDIR`
 * (else `/tmp`) over the real one, which hides codex's own helper (`codex-linux-sandbox`, linked
 * under `$CODEX_HOME/tmp`) when its home lies inside: every shell command then fails with
 * "bwrap: execvp codex-linux-sandbox: No such file or directory". Such a session gets a temp
 * dir of its own, in codex's home, so that the real temp dir (and the helper) stay visible.
 */
function ownTempDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const home = path.resolve(codexHome(env));
  const temp = path.resolve(env.TMPDIR ?? '/tmp');
  const inside = home === temp || home.startsWith(`${temp}${path.sep}`);
  return inside ? path.join(home, 'ralph-tmp') : undefined;
}

/**
 * The features of an interactive session that need no rule, turned off in a `lean` one: goals
 * a person sets (`create_goal`, `get_goal`, `update_goal`) and the clock's sleep, whose
 * descriptions codex sends in every request.
 */
const LEAN = ['-c', 'features.goals=false', '-c', 'features.sleep_tool=false'];

/** `codex exec --json`: the prompt on stdin, never a question (approval "never"), a sandbox. */
function codexCommand(invocation: Invocation): CliCommand {
  const [file, ...leading] = invocation.command;
  if (file === undefined) throw new Error('the codex command is empty');
  const s = invocation.settings;
  const args = [
    ...leading,
    'exec',
    ...(invocation.resume === undefined ? [] : ['resume']),
    '--json',
    '--skip-git-repo-check',
    '-c',
    'approval_policy="never"',
    ...(wantsBypass(s, invocation.yolo)
      ? ['--dangerously-bypass-approvals-and-sandbox']
      : [
          '-c',
          `sandbox_mode="${sandboxOf(s, invocation.sandboxed)}"`,
          ...(trimsTools(s) ? LEAN : []),
        ]),
    ...(s.model === undefined ? [] : ['-m', s.model]),
    ...(invocation.outputSchema === undefined
      ? []
      : ['--output-schema', invocation.outputSchema.file]),
    ...(invocation.resume === undefined ? [] : [invocation.resume]),
    // "-": the prompt is read from stdin (no argv size limit, not shown by ps).
    '-',
  ];
  const argv = { file, args, stdinFile: invocation.promptFile };
  const ownSandbox =
    !wantsBypass(s, invocation.yolo) && sandboxOf(s, invocation.sandboxed) !== 'danger-full-access';
  const temp = ownSandbox ? ownTempDir(invocation.env) : undefined;
  const { outputSchema } = invocation;
  return {
    argv,
    ...(temp === undefined ? {} : { env: { TMPDIR: temp }, dirs: [temp] }),
    ...(outputSchema === undefined
      ? {}
      : { files: [{ path: outputSchema.file, text: JSON.stringify(outputSchema.schema) }] }),
  };
}

/** Tool names for codex's item types, as the transcript shows them. */
function toolOf(item: Line): { name: string; input: unknown } | undefined {
  switch (item.type) {
    case 'command_execution':
      return { name: 'shell', input: { command: item.command } };
    case 'file_change':
      return { name: 'file_change', input: { changes: item.changes } };
    case 'mcp_tool_call':
      return {
        name: `mcp__${str(item.server) ?? '?'}__${str(item.tool) ?? '?'}`,
        input: item.arguments,
      };
    case 'web_search':
      return { name: 'web_search', input: { query: item.query } };
    default:
      return undefined;
  }
}

function toolOutput(item: Line): string {
  if (item.type === 'command_execution') return str(item.aggregated_output) ?? '';
  if (item.type === 'mcp_tool_call') return JSON.stringify(item.error ?? item.result ?? '');
  if (item.type === 'file_change') return JSON.stringify(item.changes ?? '');
  return '';
}

function toolFailed(item: Line): boolean {
  return (
    item.status === 'failed' ||
    item.status === 'declined' ||
    (typeof item.exit_code === 'number' && item.exit_code !== 0)
  );
}

/**
 * codex's `exec --json` events: `thread.started`, `turn.started|completed|failed`,
 * `item.started|updated|completed` (agent messages, commands, file changes, tool calls) and
 * `error`. A turn is the whole run; its end is the result (codex prints no cost: tokens only).
 */
export function codexDecoder(): StreamDecoder {
  let threadId: string | undefined;
  const started = new Set<string>();
  let lastError: string | undefined;
  let ended = false;

  const item = (line: Line, phase: 'started' | 'completed'): Decoded[] => {
    const it = line.item;
    if (typeof it !== 'object' || it === null) return [];
    const item = it as Line;
    const id = str(item.id) ?? '';
    if (item.type === 'agent_message' && phase === 'completed')
      return [{ kind: 'assistant', texts: [str(item.text) ?? ''], toolUses: [], synthetic: false }];
    const tool = toolOf(item);
    if (tool === undefined)
      return [{ kind: 'other', type: `item.${phase}`, subtype: str(item.type) }];
    const events: Decoded[] = [];
    if (!started.has(id)) {
      started.add(id);
      events.push({
        kind: 'assistant',
        texts: [],
        toolUses: [{ id, name: tool.name, input: tool.input }],
        synthetic: false,
      });
    }
    if (phase === 'completed') {
      events.push({
        kind: 'tool_results',
        results: [{ toolUseId: id, isError: toolFailed(item), text: toolOutput(item) }],
      });
      if (item.status === 'declined')
        events.push({ kind: 'permission_denied', toolName: tool.name, toolUseId: id });
    }
    return events;
  };

  const failed = (message: string): Decoded[] => {
    ended = true;
    // A 5xx is reported as "high demand" without its status.
    const status =
      statusIn(message) ?? (/high demand|server error/i.test(message) ? 500 : undefined);
    return failedRun(message, { sessionId: threadId, status, apiError: true });
  };

  return {
    decode(value, bytes) {
      const line = lineOf(value, bytes);
      if ('kind' in line) return line as Decoded;
      switch (line.type) {
        case 'thread.started':
          threadId = str(line.thread_id);
          return threadId === undefined
            ? { kind: 'issue', issue: 'schema', detail: 'thread.started without thread_id', bytes }
            : { kind: 'init', cli: 'codex', sessionId: threadId, tools: [] };
        case 'item.started':
          return item(line, 'started');
        case 'item.completed':
          return item(line, 'completed');
        case 'turn.started':
          // Its start says nothing the transcript needs.
          return undefined;
        case 'turn.completed': {
          ended = true;
          const tokens = tokensOf(line.usage, {
            input: 'input_tokens',
            output: 'output_tokens',
            cacheRead: 'cached_input_tokens',
          });
          return [
            ...(tokens === undefined ? [] : [{ kind: 'usage' as const, tokens }]),
            {
              kind: 'result',
              result: resultOf({
                subtype: 'success',
                sessionId: threadId,
                usage: line.usage as Record<string, unknown> | undefined,
              }),
            },
          ];
        }
        case 'turn.failed': {
          const error = line.error as Line | undefined;
          return failed(str(error?.message) ?? lastError ?? 'the turn failed');
        }
        case 'error': {
          const message = str(line.message) ?? '';
          if (/^Reconnecting\.\.\./.test(message)) {
            return { kind: 'api_retry', errorStatus: statusIn(message), error: message };
          }
          lastError = message;
          return { kind: 'other', type: 'error' };
        }
        default:
          return { kind: 'other', type: str(line.type) ?? '(no type)' };
      }
    },
    end() {
      // A fatal error line with no turn after it: the run ended on it.
      return !ended && lastError !== undefined ? failed(lastError) : [];
    },
  };
}

/** A command output that says codex's sandbox or its approval policy refused the command. */
const REFUSED =
  /approval policy is never; reject command|Process exited with code [1-9][0-9]*[\s\S]*(?:Read-only file system|Operation not permitted)/i;

/** codex's own log of a thread: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`. */
async function rolloutOf(
  threadId: string,
  env: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const sessions = path.join(codexHome(env), 'sessions');
  const names = async (dir: string) =>
    (await fsp.readdir(dir).catch(() => [] as string[])).sort().reverse();
  // The newest days first: a thread's log is under the day it started.
  for (const year of await names(sessions))
    for (const month of await names(path.join(sessions, year)))
      for (const day of (await names(path.join(sessions, year, month))).slice(0, 3)) {
        const dir = path.join(sessions, year, month, day);
        const file = (await names(dir)).find((name) => name.endsWith(`-${threadId}.jsonl`));
        if (file !== undefined) return path.join(dir, file);
      }
  return undefined;
}

/** The commands of a thread that codex's sandbox or approval policy refused, from its log. */
async function refusedCommands(run: {
  conversationId?: string;
  env: Readonly<Record<string, string>>;
}): Promise<Decoded[]> {
  if (run.conversationId === undefined) return [];
  const file = await rolloutOf(run.conversationId, run.env);
  if (file === undefined) return [];
  const refusals: Decoded[] = [];
  for (const text of (await fsp.readFile(file, 'utf8')).split('\n')) {
    if (!text.includes('function_call_output')) continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      continue;
    }
    const payload = (line.payload ?? {}) as Line;
    const output = str(payload.output);
    if (payload.type === 'function_call_output' && output !== undefined && REFUSED.test(output))
      refusals.push({
        kind: 'permission_denied',
        toolName: 'shell',
        toolUseId: str(payload.call_id),
        message: output.slice(-500),
      });
  }
  return refusals;
}

/** OpenAI's Codex CLI. */
export const codex: AgentCli = {
  name: 'codex',
  credentials: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  // Each model response shows as a message or a tool call, so ralph counts turns; tokens come
  // only with the end of the run.
  enforces: { maxTurns: 'ralph', budget: 'none' },
  promptOnStdin: true,
  takesSessionId: false,
  refusals(_settings, explicit) {
    return [...toolRuleRefusals('codex', explicit), ...limitRefusals(codex, explicit)];
  },
  command: codexCommand,
  decoder: codexDecoder,
  afterRun: refusedCommands,
  install: 'npm install -g @openai/codex',
  // The suite pins 0.169.0.
  tested: { major: 0, minor: 169 },
  login: { file: '.codex/auth.json', how: 'run "codex login"' },
  // Without a key in its environment, codex's own word on its login (exit 1: none).
  loginCheck: {
    status: {
      args: ['login', 'status'],
      verdict: (ran) =>
        ran.code === 1
          ? `codex login status: ${ran.stdout.trim().split('\n').at(-1) || 'not logged in'} (run "codex login", or set OPENAI_API_KEY)`
          : undefined,
    },
  },
  sandbox: {
    state: (env) => [codexHome(env)],
    apiHosts: (env) => apiHostOf(env.OPENAI_BASE_URL, 'api.openai.com:443', 'chatgpt.com:443'),
    // Every other mode runs with codex's own sandbox off, ralph's holding it.
    turnsOwnOff: true,
    refusal: (settings) =>
      settings.permissionMode === 'plan'
        ? 'codex reads only (permission mode "plan") through its own sandbox, which is bubblewrap and cannot make its user namespace inside ralph\'s: set sandbox.kind "none" for such an item, or another permission mode'
        : undefined,
  },
};
