import { randomUUID } from 'node:crypto';
import { shellQuote } from '../../agent/argv.js';
import { cliOfRecord } from '../../agent/clis/index.js';
import { buildAgentEnv } from '../../agent/env.js';
import { runOnTerminal } from '../../agent/process.js';
import { sessionFiles } from '../../archive/paths.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Output } from '../output.js';
import { openSession } from '../session-lookup.js';
import { signalExitCode } from '../signals.js';

/**
 * `ralph replay <session>`: the same agent command with the same prompt, to reproduce
 * a problem outside the loop. A fresh --session-id replaces the old one
 * (the CLI refuses to reuse one). `--exec` runs it here, on this terminal.
 */
export async function replayCommand(
  root: string,
  ref: string,
  options: { exec?: boolean; yes?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const { workspace, sessionId, record } = await openSession(root, ref, env);
  if (record.command.some((arg) => arg.includes('***'))) {
    throw new InputError(
      `the recorded command of ${sessionId} had secrets masked; it cannot be replayed as it is`,
    );
  }
  const replaySession = randomUUID();
  const argv = record.command.map((arg, i) =>
    record.command[i - 1] === '--session-id' ? replaySession : arg,
  );
  const [file, ...args] = argv;
  if (file === undefined) throw new InputError(`the record of ${sessionId} has no command`);
  const files = sessionFiles(workspace.paths.sessions, sessionId);
  const promptFile = files.prompt;
  const cli = cliOfRecord(record.cli);
  // A CLI given its input as stream-json is given the same lines again: prompt and messages.
  const stdinFile = argv.includes('--input-format')
    ? files.input
    : cli.promptOnStdin
      ? promptFile
      : undefined;
  if (!options.exec) {
    output.out(
      `cd ${shellQuote([record.workDir])} && ${shellQuote(argv)} < ${shellQuote([stdinFile ?? '/dev/null'])}`,
    );
    if (stdinFile === undefined) output.out(`# appended prompt: ${promptFile}`);
    return ExitCode.ok;
  }
  const budget = argv[argv.indexOf('--max-budget-usd') + 1];
  const cost = argv.includes('--max-budget-usd') ? `up to $${budget}` : 'money';
  if (
    options.yes !== true &&
    !(await confirm(`Replaying runs ${cli.name} again and spends ${cost}. Go on? [y/N] `, output))
  )
    throw new InputError(
      process.stdin.isTTY
        ? 'not replayed'
        : `replay --exec spends ${cost}: add --yes to confirm when there is no terminal to ask on`,
    );
  const { env: childEnv } = buildAgentEnv(env, {
    deny: workspace.config.env.deny,
    allow: workspace.config.env.allow,
    credentials: cli.credentials,
    session: {
      sessionId: replaySession,
      itemId: record.itemId,
      iteration: 0,
      interruptFile: workspace.paths.interruptFile,
    },
  });
  const ended = await runOnTerminal(
    { file, args, stdinFile },
    {
      cwd: record.workDir,
      env: childEnv,
      sessionId: replaySession,
      killGraceMs: workspace.config.run.killGrace * 1000,
    },
  );
  if ('error' in ended) {
    output.err(`ralph: ${file}: ${ended.error.message}`);
    return ExitCode.agentUnavailable;
  }
  return ended.code ?? signalExitCode(ended.signal ?? 'SIGKILL');
}

/** Asks a yes/no question on the terminal; no terminal means no. */
async function confirm(question: string, output: Output): Promise<boolean> {
  if (process.stdin.isTTY !== true) return false;
  output.err(question);
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin });
  try {
    const answer = await prompt[Symbol.asyncIterator]().next();
    return /^y(es)?$/i.test(String(answer.value ?? '').trim());
  } finally {
    prompt.close();
  }
}
