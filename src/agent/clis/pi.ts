import path from 'node:path';
import { isDefaultAllowlist } from '../../config/default-tools.js';
import type { SessionSettings } from '../../config/schema.js';
import type { Decoded, StreamDecoder } from '../../stream/decoder.js';
import type { ResolvedSettings } from '../settings.js';
import type { AgentCli, CliCommand, Invocation } from './cli.js';
import {
  limitRefusals,
  resultOf,
  ruleParts,
  statusIn,
  wantsBypass,
  type ToolMap,
  failedRun,
  lineOf,
  obj,
  str,
  num,
  type Line,
} from './common.js';

/** pi's tools for claude's tool names. */
const TOOLS: ToolMap = {
  Bash: ['bash'],
  Read: ['read'],
  Edit: ['edit', 'write'],
  Write: ['edit', 'write'],
  MultiEdit: ['edit'],
  Glob: ['find', 'ls'],
  Grep: ['grep'],
  LS: ['ls'],
};

const READING = ['read', 'grep', 'find', 'ls'];
const ALL = ['read', 'bash', 'edit', 'write', 'grep', 'find', 'ls'];

const toolsOf = (rules: readonly string[]) =>
  new Set(rules.flatMap((rule) => TOOLS[ruleParts(rule).tool] ?? []));

/**
 * The tools a session of pi gets: pi asks no permission, so what is not allowed does not
 * exist. The allowed rules less the disallowed ones (within `tools` when set); `plan` keeps
 * the reading tools, bypass has them all.
 */
export function piTools(settings: ResolvedSettings, yolo: boolean): string[] {
  if (wantsBypass(settings, yolo)) return ALL;
  const allowed = toolsOf(settings.allowedTools);
  const denied = toolsOf(settings.disallowedTools);
  const offered = settings.tools === undefined ? undefined : toolsOf(settings.tools);
  return ALL.filter(
    (tool) =>
      allowed.has(tool) &&
      !denied.has(tool) &&
      (offered === undefined || offered.has(tool)) &&
      (settings.permissionMode !== 'plan' || READING.includes(tool)),
  );
}

/** What pi cannot honour: a rule with an argument (it has no paths or command rules), a tool it lacks. */
function piRefusals(settings: ResolvedSettings, explicit: SessionSettings): string[] {
  const refusals = limitRefusals(pi, explicit);
  // ralph's built-in allowlist, unchanged, scopes edits to the work dir (`Edit(./**)`), which pi
  // cannot do. For pi it means those tools without the path, so that `--cli pi` works out of
  // the box; its bash reaches as far as claude's Bash does under the same allowlist.
  const allowed =
    explicit.allowedTools === undefined && isDefaultAllowlist(settings.allowedTools)
      ? settings.allowedTools.map((rule) => ruleParts(rule).tool)
      : settings.allowedTools;
  const rules = [...allowed, ...settings.disallowedTools, ...(settings.tools ?? [])];
  for (const rule of rules) {
    const { tool, argument } = ruleParts(rule);
    if (TOOLS[tool] === undefined) refusals.push(`pi has no tool for the rule "${rule}"`);
    else if (argument !== undefined)
      refusals.push(
        `pi cannot hold ${tool} to "${argument}" (it has no path or command rules): give its items rules without them, such as ${tool}`,
      );
  }
  return refusals;
}

/**
 * `pi -p --mode json`: the prompt appended to pi's system prompt, as claude's is (pi reads a
 * path given there; on stdin it would be glued to the short message), only the allowed tools.
 */
function piCommand(invocation: Invocation): CliCommand {
  const [file, ...leading] = invocation.command;
  if (file === undefined) throw new Error('the pi command is empty');
  const s = invocation.settings;
  const tools = piTools(s, invocation.yolo);
  return {
    argv: {
      file,
      args: [
        ...leading,
        '-p',
        '--mode',
        'json',
        // No check for updates and the like: nothing leaves the machine but the model's calls.
        '--offline',
        ...(tools.length === 0 ? ['--no-tools'] : ['--tools', tools.join(',')]),
        ...(s.model === undefined ? [] : ['--model', s.model]),
        ...(invocation.resume === undefined ? [] : ['--session', invocation.resume]),
        '--append-system-prompt',
        invocation.promptFile,
        invocation.initialPrompt,
      ],
    },
  };
}

const parts = (message: Line) =>
  Array.isArray(message.content) ? (message.content as unknown[]).map(obj) : [];

const NOT_FOUND = /^Tool (\S+) not found/;

/**
 * pi's JSON events: `session`, `message_start|update|end` (user, assistant and tool result
 * messages; an assistant message ends with its usage, cost and stop reason), `tool_execution_*`,
 * `turn_*`, `agent_*` and `auto_retry_*`. pi exits 0 even when its model call failed: the
 * outcome is the stop reason of its last assistant message once the run has ended.
 */
export function piDecoder(): StreamDecoder {
  let sessionId: string | undefined;
  let last: Line | undefined;
  /** An `agent_end` not followed by a retry: the run is over. */
  let ended = false;

  const assistant = (message: Line): Decoded[] => {
    last = message;
    const usage = obj(message.usage);
    const cached = num(usage.cacheRead) ?? 0;
    const input = num(usage.input);
    const texts = parts(message).flatMap((p) => (p.type === 'text' ? [str(p.text) ?? ''] : []));
    const toolUses = parts(message).flatMap((p) =>
      p.type === 'toolCall'
        ? [{ id: str(p.id) ?? '', name: str(p.name) ?? '(unnamed tool)', input: p.arguments }]
        : [],
    );
    return [
      ...(texts.length > 0 || toolUses.length > 0
        ? [
            {
              kind: 'assistant' as const,
              model: str(message.model),
              texts,
              toolUses,
              synthetic: false,
            },
          ]
        : []),
      ...(input === undefined || (input === 0 && num(usage.output) === 0)
        ? []
        : [
            {
              kind: 'usage' as const,
              // pi counts cached input apart; ralph's input includes it.
              tokens: {
                inputTokens: input + cached,
                outputTokens: num(usage.output),
                cacheReadTokens: cached,
              },
              costUsd: num(obj(usage.cost).total),
            },
          ]),
    ];
  };

  const toolResult = (message: Line): Decoded[] => {
    const id = str(message.toolCallId) ?? '';
    const text = parts(message)
      .map((p) => str(p.text) ?? '')
      .join('');
    // A tool pi was not given comes back "not found": a refusal.
    const missing = message.isError === true ? NOT_FOUND.exec(text) : null;
    return [
      {
        kind: 'tool_results',
        results: [{ toolUseId: id, isError: message.isError === true, text }],
      },
      ...(missing === null
        ? []
        : [{ kind: 'permission_denied' as const, toolName: missing[1], toolUseId: id }]),
    ];
  };

  return {
    decode(value, bytes) {
      const line = lineOf(value, bytes);
      if ('kind' in line) return line as Decoded;
      switch (line.type) {
        case 'session':
          sessionId = str(line.id);
          return sessionId === undefined
            ? { kind: 'issue', issue: 'schema', detail: 'session without id', bytes }
            : { kind: 'init', cli: 'pi', sessionId, tools: [] };
        case 'message_update':
          return { kind: 'delta' };
        case 'message_end': {
          const message = obj(line.message);
          if (message.role === 'assistant') return assistant(message);
          if (message.role === 'toolResult') return toolResult(message);
          // The user's message is the prompt, already archived.
          return undefined;
        }
        case 'agent_end':
          ended = true;
          return undefined;
        // Lifecycle markers and the tool's own events: the messages say the same.
        case 'agent_start':
        case 'turn_start':
        case 'turn_end':
        case 'message_start':
        case 'tool_execution_start':
        case 'tool_execution_update':
        case 'tool_execution_end':
          return undefined;
        case 'auto_retry_start':
          ended = false;
          return {
            kind: 'api_retry',
            attempt: num(line.attempt),
            maxRetries: num(line.maxAttempts),
            retryDelayMs: num(line.delayMs),
            errorStatus: statusIn(str(line.errorMessage) ?? ''),
            error: str(line.errorMessage),
          };
        default:
          return { kind: 'other', type: str(line.type) ?? '(no type)' };
      }
    },
    end() {
      // A run cut short (killed, interrupted) has no result.
      if (!ended) return [];
      const reason = last?.stopReason;
      if (reason === 'stop')
        return [{ kind: 'result', result: resultOf({ subtype: 'success', sessionId }) }];
      const message = str(last?.errorMessage) ?? `the model stopped: ${String(reason)}`;
      return failedRun(message, { sessionId, apiError: statusIn(message) !== undefined });
    },
  };
}

/** pi (Mario Zechner's pi-coding-agent). */
export const pi: AgentCli = {
  name: 'pi',
  // pi speaks to many providers: the keys of the common ones reach it.
  credentials: [
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'OPENROUTER_API_KEY',
    'GROQ_API_KEY',
    'XAI_API_KEY',
  ],
  // Each assistant message reports its tokens and cost as it ends: ralph holds both limits.
  enforces: { maxTurns: 'ralph', budget: 'ralph' },
  promptOnStdin: false,
  takesSessionId: false,
  refusals: (settings, explicit) => piRefusals(settings, explicit),
  command: piCommand,
  decoder: piDecoder,
  install: 'npm install -g @mariozechner/pi-coding-agent',
  // The suite pins 0.73.1.
  tested: { major: 0, minor: 73 },
  login: { file: '.pi/agent/auth.json', how: 'run "pi" and log in with /login' },
  sandbox: {
    state: (_env, home) => [path.join(home, '.pi')],
    // Its provider is in its own configuration: other hosts go in sandbox.allowHosts.
    apiHosts: () => ['api.anthropic.com:443', 'api.openai.com:443'],
  },
};
