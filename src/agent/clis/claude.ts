import { claudeDecoder } from './claude-stream.js';
import type { AgentCli, Invocation } from './cli.js';
import type { Argv } from '../argv.js';

/** Builds the claude command: the prompt as an argument, stream-json out, every limit as a flag. */
export function claudeArgv(invocation: Invocation): Argv {
  const [file, ...leading] = invocation.command;
  if (file === undefined) throw new Error('the claude command is empty');
  const s = invocation.settings;
  const args = [
    ...leading,
    '-p',
    invocation.initialPrompt,
    '--output-format',
    'stream-json',
    '--verbose',
    '--append-system-prompt-file',
    invocation.promptFile,
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
  // `--tools ""` means no tools at all, so an empty list is passed, not dropped.
  if (s.tools !== undefined) args.push('--tools', s.tools.join(','));
  if (s.allowedTools.length > 0) args.push('--allowedTools', s.allowedTools.join(','));
  if (s.disallowedTools.length > 0) args.push('--disallowedTools', s.disallowedTools.join(','));
  if (s.model !== undefined) args.push('--model', s.model);
  if (invocation.settingsFile !== undefined) args.push('--settings', invocation.settingsFile);
  return { file, args };
}

/** Claude Code: every limit and tool rule is a flag of its own. */
export const claude: AgentCli = {
  name: 'claude',
  credentials: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  enforces: { maxTurns: 'cli', budget: 'cli' },
  promptOnStdin: false,
  takesSessionId: true,
  refusals: () => [],
  command: (invocation) => ({ argv: claudeArgv(invocation) }),
  decoder: claudeDecoder,
  install: 'npm install -g @anthropic-ai/claude-code',
  // The suite pins 2.1.330.
  tested: { major: 2, minor: 1 },
  login: { file: '.claude/.credentials.json', how: 'run "claude" once to log in' },
};
