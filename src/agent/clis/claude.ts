import path from 'node:path';
import { isDefaultAllowlist } from '../../config/default-tools.js';
import { apiHostOf, trimsTools } from './common.js';
import { claudeDecoder } from './claude-stream.js';
import type { AgentCli, Invocation } from './cli.js';
import type { Argv } from '../argv.js';

/** A user message as a line of claude's stream-json input. */
function userLine(text: string): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`;
}

/**
 * Builds the claude command: stream-json in (the first prompt is the first line of its stdin,
 * and a person's message written there mid-task is taken into the turn) and out, every limit
 * as a flag.
 */
export function claudeArgv(invocation: Invocation): Argv {
  const [file, ...leading] = invocation.command;
  if (file === undefined) throw new Error('the claude command is empty');
  const s = invocation.settings;
  const args = [
    ...leading,
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--append-system-prompt-file',
    invocation.system.file,
    ...(invocation.resume === undefined
      ? ['--session-id', invocation.sessionId]
      : ['--resume', invocation.resume]),
    '--max-turns',
    String(s.maxTurns),
    '--max-budget-usd',
    String(s.maxBudgetUsd),
    ...(invocation.yolo
      ? ['--dangerously-skip-permissions']
      : ['--permission-mode', s.permissionMode]),
  ];
  const allowed = allowRules(s.allowedTools);
  // `--tools ""` means no tools at all, so an empty list is passed, not dropped.
  const tools = s.tools ?? (trimsTools(s) && !invocation.yolo ? leanTools(s, allowed) : undefined);
  if (tools !== undefined) args.push('--tools', tools.join(','));
  if (s.lean) {
    // The cwd, environment and git status move out of the system prompt (into the first
    // message), so that sessions in different worktrees share its cache.
    args.push('--exclude-dynamic-system-prompt-sections');
    // The user's MCP servers stay unloaded when no rule lets the session call one.
    if (![...allowed, ...(s.tools ?? [])].some((rule) => rule.startsWith('mcp__')))
      args.push('--strict-mcp-config');
  }
  if (allowed.length > 0) args.push('--allowedTools', allowed.join(','));
  if (s.disallowedTools.length > 0) args.push('--disallowedTools', s.disallowedTools.join(','));
  if (s.model !== undefined) args.push('--model', s.model);
  if (invocation.settingsFile !== undefined) args.push('--settings', invocation.settingsFile);
  if (invocation.outputSchema !== undefined)
    args.push('--json-schema', JSON.stringify(invocation.outputSchema.schema));
  return { file, args, stdinFile: invocation.inputFile, live: true };
}

/** The search tools ralph's built-in allowlist names for the CLIs whose own need a rule. */
const SEARCH_TOOLS = new Set(['Glob', 'Grep']);

/**
 * The allow rules claude is given. From ralph's built-in allowlist, Glob and Grep are left out:
 * claude's `Read` rule covers its reading tools, and naming them makes a claude whose Bash
 * searches with tools of its own (2.1.330) add both to every request, 3.9 KB more than a bare
 * `claude -p` sends. A list of the user's own is passed as written.
 */
function allowRules(rules: readonly string[]): readonly string[] {
  return isDefaultAllowlist(rules) ? rules.filter((rule) => !SEARCH_TOOLS.has(rule)) : rules;
}

/** The tools that edit files: an `Edit(…)` rule covers them all. */
const EDIT_TOOLS = ['Edit', 'Write', 'NotebookEdit'];

/**
 * The built-in tools a `lean` session is given: those its rules let it use, and subagents
 * (`Agent`, held to the same rules). Under `dontAsk` a tool no rule allows is refused anyway,
 * so its definition is only weight in every request (`acceptEdits` adds the editing tools).
 * Left out too: the tools of an interactive session that need no rule (skills, reminders,
 * workflows, findings, the search for web tools the rules refuse). Other modes ask, or allow
 * more: nothing is trimmed (`trimsTools`).
 */
function leanTools(s: Invocation['settings'], allowed: readonly string[]): string[] {
  const names = new Set<string>(['Agent']);
  for (const rule of allowed) {
    const name = /^[A-Za-z]+/.exec(rule)?.[0];
    if (name === undefined || rule.startsWith('mcp__')) continue;
    if (name === 'Edit') for (const tool of EDIT_TOOLS) names.add(tool);
    else names.add(name);
  }
  if (s.permissionMode === 'acceptEdits') for (const tool of EDIT_TOOLS) names.add(tool);
  for (const rule of s.disallowedTools) if (/^[A-Za-z]+$/.test(rule)) names.delete(rule);
  return [...names];
}

/**
 * What `claude auth status` (JSON) says of its login: none, or one that has expired. Output it
 * cannot read tells nothing (an older CLI): no problem is made of it.
 */
export function claudeAuthVerdict(
  ran: { code: number | null; stdout: string },
  now: number,
): string | undefined {
  let status: { loggedIn?: unknown; loginExpiresAt?: unknown };
  try {
    status = JSON.parse(ran.stdout) as typeof status;
  } catch {
    return undefined;
  }
  if (status.loggedIn === false)
    return 'claude auth status: not logged in (run "claude" once to log in, or set ANTHROPIC_API_KEY)';
  const expires = status.loginExpiresAt;
  const at =
    typeof expires === 'number' ? expires : typeof expires === 'string' ? Date.parse(expires) : NaN;
  if (Number.isFinite(at) && at <= now)
    return `claude auth status: its login expired at ${new Date(at).toISOString()} (run "claude" to log in again)`;
  return undefined;
}

/**
 * Its first message: the item's assignment after the opening words, which its system prompt
 * (the same for every item) leaves out. A resumed conversation holds its assignment already.
 */
function firstMessageOf(invocation: Invocation): string {
  return invocation.resume === undefined
    ? `${invocation.initialPrompt}\n\n${invocation.system.assignment}`
    : invocation.initialPrompt;
}

/** Claude Code: every limit and tool rule is a flag of its own. */
export const claude: AgentCli = {
  name: 'claude',
  credentials: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  enforces: { maxTurns: 'cli', budget: 'cli' },
  promptOnStdin: false,
  takesSessionId: true,
  refusals: () => [],
  messageLine: userLine,
  command: (invocation) => ({
    argv: claudeArgv(invocation),
    // Lean: claude's own commit-and-pull-request instructions (several KB of its system prompt
    // and its Bash tool's description) and its per-session git status stay out of every request;
    // ralph's standing instructions say what a worktree's commits are to be.
    ...(invocation.settings.lean ? { env: { CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: '1' } } : {}),
    files: [
      { path: invocation.system.file, text: invocation.system.text },
      { path: invocation.inputFile, text: userLine(firstMessageOf(invocation)) },
    ],
  }),
  decoder: claudeDecoder,
  install: 'npm install -g @anthropic-ai/claude-code',
  // The suite pins 2.1.330.
  tested: { major: 2, minor: 1 },
  login: { file: '.claude/.credentials.json', how: 'run "claude" once to log in' },
  loginCheck: {
    status: {
      args: ['auth', 'status'],
      verdict: claudeAuthVerdict,
      loggedIn: (ran) => ran.code === 0 && /"loggedIn"\s*:\s*true/.test(ran.stdout),
    },
    keyProbe: (env) =>
      env.ANTHROPIC_API_KEY === undefined || env.ANTHROPIC_API_KEY === ''
        ? undefined
        : {
            url: `${(env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/models?limit=1`,
            headers: { 'x-api-key': env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01' },
          },
  },
  sandbox: {
    state: (env, home) =>
      env.CLAUDE_CONFIG_DIR === undefined
        ? [path.join(home, '.claude'), path.join(home, '.claude.json')]
        : [env.CLAUDE_CONFIG_DIR],
    apiHosts: (env) => apiHostOf(env.ANTHROPIC_BASE_URL, 'api.anthropic.com:443'),
  },
};
