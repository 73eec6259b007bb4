import path from 'node:path';
import type { Decoded, StreamDecoder } from '../../stream/decoder.js';
import type { ResolvedSettings } from '../settings.js';
import type { AgentCli, CliCommand, Invocation } from './cli.js';
import {
  commandPrefix,
  mappedRuleRefusals,
  resultOf,
  ruleParts,
  trimsTools,
  wantsBypass,
  type ToolMap,
  failedRun,
  lineOf,
  obj,
  str,
  num,
  type Line,
  apiHostOf,
} from './common.js';

/** gemini's tools for claude's tool names (reading tools need no rule: gemini allows them). */
const TOOLS: ToolMap = {
  Bash: ['run_shell_command'],
  Edit: ['write_file', 'replace'],
  Write: ['write_file', 'replace'],
  MultiEdit: ['replace'],
  WebFetch: ['web_fetch'],
  WebSearch: ['google_web_search'],
  Read: [],
  Glob: [],
  Grep: [],
  LS: [],
};

/** One rule of gemini's policy language, in TOML. */
function toolRule(
  name: string,
  decision: 'allow' | 'deny',
  priority: number,
  prefix?: string,
): string {
  return [
    '[[rule]]',
    `toolName = ${JSON.stringify(name)}`,
    ...(prefix === undefined || prefix === '' ? [] : [`commandPrefix = ${JSON.stringify(prefix)}`]),
    `decision = "${decision}"`,
    `priority = ${priority}`,
    // An allowed command may redirect its output (gemini asks about `>` otherwise).
    ...(name === 'run_shell_command' && decision === 'allow' ? ['allowRedirection = true'] : []),
    '',
  ].join('\n');
}

/** A claude rule as gemini's policy rules. */
function policyRule(rule: string, decision: 'allow' | 'deny', priority: number): string[] {
  const { tool, argument } = ruleParts(rule);
  const prefix = tool === 'Bash' && argument !== undefined ? commandPrefix(argument) : undefined;
  return (TOOLS[tool] ?? []).map((name) => toolRule(name, decision, priority, prefix));
}

/**
 * The tools that reach past the work dir, denied unless a rule allows them (as claude refuses
 * them without one): gemini runs its web search without asking, through the model's own API,
 * which no sandbox holds back.
 */
const CLOSED = ['web_fetch', 'google_web_search'];

/**
 * The tools of an interactive session that need no rule (naming the conversation's topic,
 * entering plan mode), denied in a `lean` one: gemini then leaves them out of every request.
 */
const INTERACTIVE = ['update_topic', 'enter_plan_mode'];

/**
 * The session's tool rules as a gemini policy file: a closed start, the rules that allow, and
 * those that deny (denials win). gemini gets one only when nothing is bypassed.
 */
export function geminiPolicy(settings: ResolvedSettings): string {
  return [
    "# Written by ralph for one session: the item's tool rules in gemini's policy language.",
    '',
    ...CLOSED.map((name) => toolRule(name, 'deny', 100)),
    ...(trimsTools(settings) ? INTERACTIVE.map((name) => toolRule(name, 'deny', 100)) : []),
    ...settings.allowedTools.flatMap((rule) => policyRule(rule, 'allow', 500)),
    ...settings.disallowedTools.flatMap((rule) => policyRule(rule, 'deny', 900)),
  ].join('\n');
}

/** gemini's approval mode for a permission mode: it never asks in headless runs. */
function approvalMode(settings: ResolvedSettings, yolo: boolean): string {
  if (wantsBypass(settings, yolo)) return 'yolo';
  if (settings.permissionMode === 'plan') return 'plan';
  return settings.permissionMode === 'acceptEdits' ? 'auto_edit' : 'default';
}

/**
 * `gemini -o stream-json`: the prompt on stdin (`-p` is appended to it), ralph's session id as
 * gemini's, the tool rules as a policy file, the work dir trusted for the session.
 */
function geminiCommand(invocation: Invocation): CliCommand {
  const [file, ...leading] = invocation.command;
  if (file === undefined) throw new Error('the gemini command is empty');
  const s = invocation.settings;
  const mode = approvalMode(s, invocation.yolo);
  const policy = mode === 'default' || mode === 'auto_edit';
  const args = [
    ...leading,
    '-p',
    invocation.initialPrompt,
    '-o',
    'stream-json',
    '--skip-trust',
    '--approval-mode',
    mode,
    ...(policy ? ['--policy', invocation.policyFile] : []),
    ...(invocation.resume === undefined
      ? ['--session-id', invocation.sessionId]
      : ['--resume', invocation.resume]),
    ...(s.model === undefined ? [] : ['-m', s.model]),
  ];
  return {
    argv: { file, args, stdinFile: invocation.promptFile },
    files: policy ? [{ path: invocation.policyFile, text: geminiPolicy(s) }] : [],
  };
}

/** A tool result that is a refusal: the tool was not offered, or needed an approval nobody gives. */
const REFUSED_TYPES = /not_registered|denied|policy/i;
const REFUSED_TEXT = /requires user confirmation|denied by policy|not found\. Did you mean/i;

/**
 * gemini's stream-json: `init`, `message` (the assistant's text in deltas), `tool_use`,
 * `tool_result`, `error` (warnings), and `result` with the run's token stats. The deltas of a
 * message are shown as they come and read as one message when it ends.
 */
export function geminiDecoder(): StreamDecoder {
  let sessionId: string | undefined;
  let text = '';
  let model: string | undefined;
  const tools = new Map<string, string>();

  /** The assistant message under way, as one event, once something else follows it. */
  const flush = (): Decoded[] => {
    if (text === '') return [];
    const message: Decoded = {
      kind: 'assistant',
      model,
      texts: [text],
      toolUses: [],
      synthetic: false,
    };
    text = '';
    return [message];
  };

  const result = (line: Line): Decoded[] => {
    const stats = (line.stats ?? {}) as Line;
    const input = num(stats.input_tokens);
    const output = num(stats.output_tokens);
    const usage: Decoded[] =
      input === undefined && output === undefined
        ? []
        : [
            {
              kind: 'usage',
              tokens: {
                inputTokens: input,
                outputTokens: output,
                cacheReadTokens: num(stats.cached),
              },
            },
          ];
    if (line.status === 'success')
      return [
        ...usage,
        {
          kind: 'result',
          result: resultOf({ subtype: 'success', sessionId, durationMs: num(stats.duration_ms) }),
        },
      ];
    const message = str(obj(line.error).message) ?? 'the run failed';
    return [...usage, ...failedRun(message, { sessionId, apiError: /API Error/i.test(message) })];
  };

  return {
    decode(value, bytes) {
      const line = lineOf(value, bytes);
      if ('kind' in line) return line as Decoded;
      switch (line.type) {
        case 'init':
          sessionId = str(line.session_id);
          model = str(line.model);
          return sessionId === undefined
            ? { kind: 'issue', issue: 'schema', detail: 'init without session_id', bytes }
            : { kind: 'init', cli: 'gemini', sessionId, model, tools: [] };
        case 'message': {
          // The user's message is the prompt, already archived.
          if (line.role !== 'assistant') return flush();
          const content = str(line.content) ?? '';
          if (line.delta === true) {
            text += content;
            return { kind: 'delta' };
          }
          // A whole message: whatever was under way ends before it.
          const before = flush();
          text = content;
          return [...before, ...flush()];
        }
        case 'tool_use': {
          const id = str(line.tool_id) ?? '';
          const name = str(line.tool_name) ?? '(unnamed tool)';
          tools.set(id, name);
          return [
            ...flush(),
            {
              kind: 'assistant',
              model,
              texts: [],
              toolUses: [{ id, name, input: line.parameters }],
              synthetic: false,
            },
          ];
        }
        case 'tool_result': {
          const id = str(line.tool_id) ?? '';
          const error = (line.error ?? {}) as Line;
          const output = str(line.output) ?? str(error.message) ?? '';
          const failed = line.status !== 'success';
          const refused =
            failed && (REFUSED_TYPES.test(str(error.type) ?? '') || REFUSED_TEXT.test(output));
          return [
            { kind: 'tool_results', results: [{ toolUseId: id, isError: failed, text: output }] },
            ...(refused
              ? [{ kind: 'permission_denied' as const, toolName: tools.get(id), toolUseId: id }]
              : []),
          ];
        }
        case 'result':
          return [...flush(), ...result(line)];
        default:
          return [...flush(), { kind: 'other', type: str(line.type) ?? '(no type)' }];
      }
    },
    end: flush,
  };
}

/** Google's Gemini CLI. */
export const gemini: AgentCli = {
  name: 'gemini',
  credentials: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  // Its turn limit is a setting, not a flag (ralph counts); its tokens come with its result.
  enforces: { maxTurns: 'ralph', budget: 'none' },
  promptOnStdin: true,
  takesSessionId: true,
  refusals: (settings, explicit) => mappedRuleRefusals(gemini, TOOLS, settings, explicit),
  command: geminiCommand,
  decoder: geminiDecoder,
  install: 'npm install -g @google/gemini-cli',
  // The suite pins 0.61.0.
  tested: { major: 0, minor: 61 },
  login: { file: '.gemini/oauth_creds.json', how: 'run "gemini" once to log in' },
  loginCheck: {
    keyProbe: (env) => {
      const key = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
      if (key === undefined || key === '') return undefined;
      const base = (
        env.GOOGLE_GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com'
      ).replace(/\/+$/, '');
      return { url: `${base}/v1beta/models?pageSize=1`, headers: { 'x-goog-api-key': key } };
    },
  },
  sandbox: {
    state: (_env, home) => [path.join(home, '.gemini')],
    apiHosts: (env) =>
      apiHostOf(
        env.GOOGLE_GEMINI_BASE_URL,
        'generativelanguage.googleapis.com:443',
        'oauth2.googleapis.com:443',
        'cloudcode-pa.googleapis.com:443',
      ),
  },
};
