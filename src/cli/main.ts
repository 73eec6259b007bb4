import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { PERMISSION_MODES } from '../config/permission-modes.js';
import { isErrnoException, RalphError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import { processOutput, type Output } from './output.js';
import { VERSION } from './version.js';

/** Errors of the file system that name a fault of the machine, not of ralph. */
const IO_CODES = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EACCES', 'EPERM']);

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The composition root: parses the command line, runs one command, and maps every failure to
 * an exit code. Command modules are imported only when their command runs, to start fast.
 */
export async function main(
  argv: readonly string[],
  output: Output = processOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = new Command('ralph')
    .description('Runs a queue of coding tasks through headless Claude Code, unattended.')
    .version(VERSION, '-V, --version')
    .option('-C, --root <dir>', 'workspace directory', '.')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => output.out(s), writeErr: (s) => output.err(s) });
  const root = () => path.resolve(program.opts<{ root: string }>().root);

  program
    .command('init [dir]')
    .description('create a workspace (never overwrites a file)')
    .action(async (dir: string | undefined) => {
      const { initCommand } = await import('./commands/init.js');
      exitCode = await initCommand(dir === undefined ? root() : path.resolve(root(), dir), output);
    });

  program
    .command('add <title...>')
    .description('add a work item to the queue; prints its id')
    .option('--id <id>', 'item id (a safe slug; default: from the title)')
    .option('--body <text>', 'task text ("-" reads standard input)')
    .option('--file <path>', 'read the task text from a file ("-" for standard input)')
    .option('--priority <n>', 'higher runs first', '0')
    .option('--max-attempts <n>', 'attempts before the item is failed')
    .option('--max-turns <n>', 'claude --max-turns')
    .option('--max-budget-usd <usd>', 'claude --max-budget-usd')
    .option('--timeout <duration>', 'wall-clock limit, e.g. 90s, 15m, 2h')
    .option('--idle-timeout <duration>', 'limit on time without output')
    .option('--model <model>', 'claude --model')
    .option('--work-dir <dir>', "the agent's working directory")
    .option('--agent <id>', 'persona (agents/AGENT_<ID>.md)')
    .option('--tools <list>', 'claude --tools (comma-separated; "" for none)')
    .option('--allowed-tools <list>', 'claude --allowedTools (comma-separated rules)')
    .option('--disallowed-tools <list>', 'claude --disallowedTools (comma-separated rules)')
    .addOption(
      new Option('--permission-mode <mode>', 'claude --permission-mode').choices(PERMISSION_MODES),
    )
    .option(
      '--depends-on <ids>',
      'ids that must be done first (comma-separated, repeatable)',
      collect,
    )
    .option('--not-before <time>', 'do not start before this ISO time')
    .option('--schedule <cron>', 'requeue after each run on this cron schedule')
    .option('--var <key=value>', 'template variable (repeatable)', collect)
    .option('--replace', 'replace an item with the same id that is not running')
    .action(async (words: string[], options: Record<string, unknown>) => {
      const { addCommand } = await import('./commands/add.js');
      exitCode = await addCommand(root(), words.join(' '), options, output);
    });

  program
    .command('queue')
    .alias('ls')
    .description('list the queue')
    .option('--json', 'print the items as JSON')
    .action(async (options: { json?: boolean }) => {
      const { queueCommand } = await import('./commands/queue.js');
      exitCode = await queueCommand(root(), options, output);
    });

  program
    .command('run')
    .description('work through the queue')
    .option('--once', 'run one item, then exit')
    .option('--max-iterations <n>', 'stop after this many sessions')
    .option('--drain', 'exit when nothing runnable is left (otherwise wait for new items)')
    .option('--dry-run', 'print the command for each runnable item; spawn nothing')
    .option('--max-cost <usd>', 'stop claiming items once the run has spent this much')
    .option('--until <time>', 'no new item after this time (HH:MM local, or ISO)')
    .option(
      '--window <cron>',
      'start items only in minutes this cron expression names (repeatable)',
      collect,
    )
    .action(async (options: Record<string, unknown>) => {
      const { runCommand } = await import('./commands/run.js');
      exitCode = await runCommand(root(), options, output, env);
    });

  program
    .command('status')
    .description('the queue, the running session, pauses and waits, the budget')
    .option('--json', 'print the report as JSON')
    .option('--watch', 'refresh every 2 seconds')
    .action(async (options: { json?: boolean; watch?: boolean }) => {
      const { statusCommand } = await import('./commands/status.js');
      exitCode = await statusCommand(root(), options, output);
    });

  program
    .command('sessions')
    .description('one line per session, newest first')
    .option('--item <id>', 'only this item')
    .option('--status <status>', 'only this status or outcome')
    .option('--since <time>', 'only since this time, or this long ago (24h, 7d)')
    .option('--json', 'print JSON')
    .action(async (options: { item?: string; status?: string; since?: string; json?: boolean }) => {
      const { sessionsCommand } = await import('./commands/sessions.js');
      exitCode = await sessionsCommand(root(), options, output);
    });

  program
    .command('logs <session>')
    .description('a session (id, id prefix or item id) as a readable transcript')
    .option('--follow', 'follow a live session until it ends')
    .option('--raw', 'print the stream-json archive as it is')
    .option('--json', 'print the parsed events as JSON lines')
    .action(async (ref: string, options: { follow?: boolean; raw?: boolean; json?: boolean }) => {
      const { logsCommand } = await import('./commands/logs.js');
      exitCode = await logsCommand(root(), ref, options, output, env);
    });

  program
    .command('show <session>')
    .description('the session record, command, prompt, stderr and files')
    .option('--json', 'print the record as JSON')
    .action(async (ref: string, options: { json?: boolean }) => {
      const { showCommand } = await import('./commands/show.js');
      exitCode = await showCommand(root(), ref, options, output, env);
    });

  program
    .command('report')
    .description('outcomes, cost and time per day and per item')
    .option('--since <time>', 'only since this time, or this long ago (24h, 7d)')
    .option('--json', 'print JSON')
    .action(async (options: { since?: string; json?: boolean }) => {
      const { reportCommand } = await import('./commands/report.js');
      exitCode = await reportCommand(root(), options, output);
    });

  for (const [name, description] of [
    ['retry', 'put a failed, cancelled or interrupted item back in the queue, attempts renewed'],
    ['cancel', 'cancel an item (it stays in the file)'],
    ['rm', 'remove an item from the queue'],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(description)
      .action(async (id: string) => {
        const commands = await import('./commands/items.js');
        const command = {
          retry: commands.retryCommand,
          cancel: commands.cancelCommand,
          rm: commands.removeCommand,
        }[name];
        exitCode = await command(root(), id, output);
      });
  }

  program
    .command('doctor')
    .description('check the claude binary, its version and credentials, and the workspace')
    .action(async () => {
      const { doctorCommand } = await import('./commands/doctor.js');
      exitCode = await doctorCommand(root(), output, env);
    });

  program
    .command('replay <session>')
    .description('print (or run, with --exec) the claude command of a session')
    .option('--exec', 'run it here')
    .action(async (ref: string, options: { exec?: boolean }) => {
      const { replayCommand } = await import('./commands/replay.js');
      exitCode = await replayCommand(root(), ref, options, output, env);
    });

  const agents = program
    .command('agents')
    .description('list the personas (agents/AGENT_<ID>.md) with their tool scopes')
    .action(async () => {
      const { agentsCommand } = await import('./commands/agents.js');
      exitCode = await agentsCommand(root(), output);
    });
  agents
    .command('show <id>')
    .description('the assembled prompt and command a sample item gets with this persona')
    .action(async (id: string) => {
      const { agentShowCommand } = await import('./commands/agents.js');
      exitCode = await agentShowCommand(root(), id, output, env);
    });

  program
    .command('pause [reason...]')
    .description('pause the night: stop the running agent and start nothing until resumed')
    .option('--after-current', 'let the running item finish first')
    .action(async (words: string[], options: { afterCurrent?: boolean }) => {
      const { pauseCommand } = await import('./commands/pause.js');
      const reason = words.length > 0 ? words.join(' ') : undefined;
      exitCode = await pauseCommand(root(), reason, options, output);
    });

  program
    .command('resume')
    .description('remove the interrupt file so the runner goes on')
    .action(async () => {
      const { resumeCommand } = await import('./commands/pause.js');
      exitCode = await resumeCommand(root(), output);
    });

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof RalphError) {
      output.err(`ralph: ${error.message}`);
      return error.exitCode;
    }
    if (isErrnoException(error) && IO_CODES.has(error.code ?? '')) {
      // The machine's doing, not a bug: say what the file system refused.
      output.err(`ralph: ${error.message}`);
      return ExitCode.ioError;
    }
    output.err(
      `ralph: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n` +
        'This is a bug in ralph; please report it with the lines above.',
    );
    return ExitCode.internal;
  }
}
