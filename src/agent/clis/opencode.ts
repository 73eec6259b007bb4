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
} from './common.js';

/** opencode's permission keys for claude's tool names (reading tools are allowed as they are). */
const PERMISSIONS: ToolMap = {
  Bash: ['bash'],
  Edit: ['edit'],
  Write: ['edit'],
  MultiEdit: ['edit'],
  WebFetch: ['webfetch'],
  WebSearch: ['websearch'],
  Read: [],
  Glob: [],
  Grep: [],
  LS: [],
};

/** What every session starts from: nothing that writes, runs or reaches out unless allowed. */
const CLOSED = {
  bash: 'deny',
  edit: 'deny',
  webfetch: 'deny',
  websearch: 'deny',
  external_directory: 'deny',
} as const;

/**
 * The tools of an interactive session that need no rule (its to-do list, skills), denied in a
 * `lean` one: opencode then leaves their definitions out of every request.
 */
const INTERACTIVE = { todowrite: 'deny', skill: 'deny' } as const;

type Action = 'allow' | 'deny';
type Permission = Record<string, Action | Record<string, Action>>;

/** Sets one rule: a plain action, or a command pattern of bash (the others then denied). */
function apply(permission: Permission, rule: string, action: Action): void {
  const { tool, argument } = ruleParts(rule);
  for (const key of PERMISSIONS[tool] ?? []) {
    if (key !== 'bash' || argument === undefined) {
      permission[key] = action;
      continue;
    }
    const current = permission.bash;
    const patterns = typeof current === 'object' ? current : { '*': current ?? 'deny' };
    permission.bash = { ...patterns, [`${commandPrefix(argument)} *`]: action };
  }
}

/** The session's permissions in opencode's configuration: its rules over a closed start. */
export function opencodePermission(settings: ResolvedSettings, yolo: boolean): Permission {
  if (wantsBypass(settings, yolo))
    return Object.fromEntries(Object.keys(CLOSED).map((key) => [key, 'allow']));
  const permission: Permission = { ...CLOSED, ...(trimsTools(settings) ? INTERACTIVE : {}) };
  if (settings.permissionMode !== 'plan') {
    for (const rule of settings.allowedTools) apply(permission, rule, 'allow');
    if (settings.permissionMode === 'acceptEdits') permission.edit = 'allow';
  }
  for (const rule of settings.disallowedTools) apply(permission, rule, 'deny');
  return permission;
}

/**
 * The configuration opencode gets in OPENCODE_CONFIG_CONTENT (which beats its global and
 * project files): the user's own content, if any, with ralph's permissions over it.
 */
function configContent(existing: string | undefined, permission: Permission): string {
  let base: Record<string, unknown> = {};
  try {
    const parsed: unknown = existing === undefined ? {} : JSON.parse(existing);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      base = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: opencode would refuse it too; ralph's permissions still apply.
  }
  return JSON.stringify({ ...base, permission });
}

/**
 * `opencode run --format json`: the prompt on stdin after a short message, its permissions in
 * its configuration, the session named after the item (opencode asks a model for a title else).
 */
function opencodeCommand(invocation: Invocation): CliCommand {
  const [file, ...leading] = invocation.command;
  if (file === undefined) throw new Error('the opencode command is empty');
  const s = invocation.settings;
  const args = [
    ...leading,
    'run',
    '--format',
    'json',
    ...(s.model === undefined ? [] : ['-m', s.model]),
    ...(invocation.resume === undefined
      ? ['--title', invocation.title]
      : ['--session', invocation.resume]),
    invocation.initialPrompt,
  ];
  return {
    argv: { file, args, stdinFile: invocation.promptFile },
    env: {
      OPENCODE_CONFIG_CONTENT: configContent(
        invocation.env.OPENCODE_CONFIG_CONTENT,
        opencodePermission(s, invocation.yolo),
      ),
    },
  };
}

const UNAVAILABLE = /unavailable tool '([^']+)'/;
const REJECTED = /rejected permission/i;

/**
 * opencode's JSON events: `step_start`, `text`, `reasoning`, `tool_use` (a call and its result
 * in one), `step_finish` (the step's tokens and cost, and why it ended) and `error`. It prints
 * no final result: a run whose last step finished with "stop" is a success.
 */
export function opencodeDecoder(): StreamDecoder {
  let sessionId: string | undefined;
  let finished = false;
  let failed = false;

  const toolUse = (part: Line): Decoded[] => {
    const state = obj(part.state);
    const input = obj(state.input);
    const id = str(part.callID) ?? str(part.id) ?? '';
    // A call of a tool opencode was told to deny comes back as a call of "invalid".
    const unavailable = part.tool === 'invalid' ? UNAVAILABLE.exec(str(input.error) ?? '') : null;
    const name = unavailable?.[1] ?? str(part.tool) ?? '(unnamed tool)';
    const output = str(state.output) ?? str(state.error) ?? '';
    const refused = unavailable !== null || REJECTED.test(str(state.error) ?? '');
    return [
      {
        kind: 'assistant',
        texts: [],
        toolUses: [{ id, name, input: unavailable === null ? state.input : { tool: name } }],
        synthetic: false,
      },
      {
        kind: 'tool_results',
        results: [{ toolUseId: id, isError: refused || state.status === 'error', text: output }],
      },
      ...(refused ? [{ kind: 'permission_denied' as const, toolName: name, toolUseId: id }] : []),
    ];
  };

  const stepFinish = (part: Line): Decoded[] => {
    finished = part.reason === 'stop';
    const tokens = obj(part.tokens);
    const cached = num(obj(tokens.cache).read) ?? 0;
    const input = num(tokens.input);
    return [
      {
        kind: 'usage',
        // opencode counts cached input apart; ralph's input includes it.
        tokens: {
          inputTokens: input === undefined ? undefined : input + cached,
          outputTokens: num(tokens.output),
          cacheReadTokens: cached,
        },
        costUsd: num(part.cost),
      },
    ];
  };

  const error = (line: Line): Decoded[] => {
    failed = true;
    const err = obj(line.error);
    const data = obj(err.data);
    const message = str(data.message) ?? str(err.message) ?? str(err.name) ?? 'the run failed';
    return failedRun(message, {
      sessionId,
      status: num(data.statusCode),
      apiErrorType: str(err.name),
      apiError: err.name === 'APIError',
    });
  };

  return {
    decode(value, bytes) {
      const line = lineOf(value, bytes);
      if ('kind' in line) return line as Decoded;
      const part = obj(line.part);
      const init: Decoded[] = [];
      if (sessionId === undefined && typeof line.sessionID === 'string') {
        sessionId = line.sessionID;
        init.push({ kind: 'init', cli: 'opencode', sessionId, tools: [] });
      }
      switch (line.type) {
        case 'text':
          return [
            ...init,
            { kind: 'assistant', texts: [str(part.text) ?? ''], toolUses: [], synthetic: false },
          ];
        case 'tool_use':
          return [...init, ...toolUse(part)];
        case 'step_finish':
          return [...init, ...stepFinish(part)];
        case 'error':
          return [...init, ...error(line)];
        case 'step_start':
          // A step's start says nothing its finish does not.
          return init;
        default:
          return [...init, { kind: 'other', type: str(line.type) ?? '(no type)' }];
      }
    },
    end() {
      return finished && !failed
        ? [{ kind: 'result', result: resultOf({ subtype: 'success', sessionId }) }]
        : [];
    },
  };
}

/** opencode (sst). */
export const opencode: AgentCli = {
  name: 'opencode',
  // opencode speaks to many providers: the keys of the common ones reach it.
  credentials: [
    'OPENCODE_API_KEY',
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'OPENROUTER_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
  ],
  // Each step reports its tokens and cost as it ends: ralph holds both limits.
  enforces: { maxTurns: 'ralph', budget: 'ralph' },
  promptOnStdin: true,
  takesSessionId: false,
  refusals: (settings, explicit) => mappedRuleRefusals(opencode, PERMISSIONS, settings, explicit),
  command: opencodeCommand,
  decoder: opencodeDecoder,
  install: 'npm install -g opencode-ai',
  // The suite pins 1.18.33.
  tested: { major: 1, minor: 18 },
  login: { file: '.local/share/opencode/auth.json', how: 'run "opencode auth login"' },
  sandbox: {
    state: (env, home) =>
      [
        [env.XDG_DATA_HOME, '.local/share'],
        [env.XDG_CONFIG_HOME, '.config'],
        [env.XDG_CACHE_HOME, '.cache'],
        [env.XDG_STATE_HOME, '.local/state'],
      ].map(([dir, fallback]) => path.join(dir ?? path.join(home, fallback ?? ''), 'opencode')),
    // Its provider is in its own configuration: other hosts go in sandbox.allowHosts.
    apiHosts: () => ['api.anthropic.com:443', 'api.openai.com:443', 'models.dev:443'],
  },
};
