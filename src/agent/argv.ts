import type { ResolvedSettings } from './settings.js';

/** Everything that decides the claude command line of one session. */
export interface ClaudeInvocation {
  /** The executable and any leading arguments from the configuration. */
  command: readonly string[];
  initialPrompt: string;
  appendSystemPromptFile: string;
  /** A fresh session's id (a UUID); ignored when resuming. */
  sessionId: string;
  /** The claude session to resume instead of starting a new one. */
  resume?: string;
  settings: ResolvedSettings;
  settingsFile?: string;
  /** The user's explicit opt-in to skip every permission check. */
  yolo: boolean;
}

/** The executable and its arguments, as an argv array (never a shell string). */
export interface Argv {
  file: string;
  args: string[];
}

/** Builds the claude command: the prompt as an argument, stream-json out, every limit as a flag. */
export function buildArgv(invocation: ClaudeInvocation): Argv {
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
    invocation.appendSystemPromptFile,
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

/** Quotes an argv for display (copy-paste into a POSIX shell); never used to run anything. */
export function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
