import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { shellQuote } from '../../agent/argv.js';
import { CONFIG_FILE } from '../../config/config-file.js';
import { makeDemoProject } from '../../demo/project.js';
import { DEMO_ITEMS } from '../../demo/script.js';
import { InputError, isErrnoException } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { DEMO_AGENT, RALPH_BIN } from '../../lib/package-files.js';
import { withQueue } from '../../queue/open.js';
import { addItem } from '../../workspace/admission.js';
import { flagOf } from '../item-flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { itemFromFlags } from './add.js';
import { initCommand } from './init.js';
import { openServer } from './serve.js';
import { signalExitCode, untilStopSignal } from '../signals.js';

/** Output that says nothing: the demo tells its own story. */
const quiet: Output = { out: () => {}, err: () => {}, raw: () => {}, isTTY: false };

/**
 * `ralph demo [dir]`: a whole night without an account or a network. In `dir` (new, or empty)
 * it makes a small git repository whose test fails (`project/`) and a workspace beside it
 * (`night/`) with six items, run by ralph's demo agent (a scripted stand-in that speaks
 * claude's stream-json, edits and commits for real, and costs nothing) with two workers, git
 * mode, gates and landing. The dashboard is served while the night runs and after it, until
 * Ctrl-C (`--no-serve`: the terminal alone). Nothing outside `dir` is touched.
 */
export async function demoCommand(
  dir: string,
  options: { serve?: boolean; pace?: string },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const pace = options.pace ?? '400';
  if (!/^\d+$/.test(pace)) throw new InputError('--pace: a number of milliseconds', '--pace');
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0)
    throw new InputError(`${dir} is not empty: give ralph demo a new or empty directory`);
  const project = path.join(dir, 'project');
  const root = path.join(dir, 'night');
  try {
    makeDemoProject(project);
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT')
      throw new InputError('ralph demo needs git (its night works on branches): install git');
    throw error;
  }
  await initCommand(root, { project, here: dir }, quiet, env);
  writeDemoConfig(root, pace);
  const workspace = await openWorkspace(root);
  await withQueue(workspace, env, async (queue) => {
    for (const [at, demo] of DEMO_ITEMS.entries()) {
      const item = await itemFromFlags(
        demo.title,
        {
          id: demo.id,
          body: demo.body,
          gate: demo.gates.map((gate) => JSON.stringify(gate)),
          dependsOn: demo.dependsOn,
          allowedTools: demo.allowedTools?.join(','),
          criterion: demo.criteria,
          review: demo.review,
        },
        // In the order they are listed, whatever the clock's resolution.
        Date.now() + at,
      );
      await addItem(workspace, queue, item, {
        replace: false,
        names: flagOf,
        searchPath: env.PATH,
      });
    }
  });
  output.out(`ralph demo: a night of ${DEMO_ITEMS.length} items on ${project}`);
  output.out(`  the workspace is ${root}; the agent is ralph's demo agent (no account, $0)`);
  const server =
    options.serve === false
      ? undefined
      : await openServer(workspace, { host: '127.0.0.1', port: '0' }, output, env);
  const code = await runNight(root, env);
  const ralph = (args: string) => `ralph -C ${shellQuote([root])} ${args}`;
  output.out('');
  output.out(`ralph demo: the night is over (ralph run exited ${code}). Look at it:`);
  for (const line of [
    ralph('status'),
    ralph('report'),
    ralph('logs fix-add'),
    ralph('diff cli'),
    `git -C ${shellQuote([project])} log --oneline ralph/landed`,
    // The changelog was refused its write by its allowlist: allowed first, then answered.
    ralph('edit changelog --allowed-tools Read,Bash,Write'),
    ralph('say changelog "You may write CHANGELOG.md now"'),
    ralph('run --drain'),
  ])
    output.out(`  ${line}`);
  if (server === undefined) return code;
  output.out(`The dashboard stays at ${server.openUrl} until Ctrl-C.`);
  await untilStopSignal();
  await server.close();
  return code;
}

/** The demo's settings over the spelled-out defaults: its agent, git mode and landing. */
function writeDemoConfig(root: string, pace: string): void {
  const file = path.join(root, CONFIG_FILE);
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const section = (name: string) => (config[name] ?? {}) as Record<string, unknown>;
  const demo = {
    ...config,
    clis: {
      ...section('clis'),
      claude: { command: [process.execPath, DEMO_AGENT, '--demo-pace', pace] },
    },
    git: { ...section('git'), enabled: true },
    // Each worktree's dependencies before its first session, as a real night's: installed once
    // for the lockfile, then a copy of that tree for each worktree.
    environment: {
      ...section('environment'),
      dependencies: [
        {
          lockfiles: ['package-lock.json'],
          paths: ['node_modules'],
          install: [['npm', 'ci', '--offline', '--no-audit', '--no-fund']],
        },
      ],
    },
    land: { ...section('land'), enabled: true },
    // A failed gate goes back to its agent in seconds, not the minute a real night waits.
    run: { ...section('run'), workers: 2, retryBackoffCap: 2, failureBackoffCap: 2 },
  };
  fs.writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
}

/**
 * `ralph run --drain` of the demo's workspace, its lines on this terminal; its exit code. A
 * Ctrl-C reaches the night from the terminal (one process group) and stops it as it stops any
 * night; a SIGTERM sent to the demo alone is passed on. Either way the demo waits for the night.
 */
function runNight(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const child = spawn(process.execPath, [RALPH_BIN, '-C', root, 'run', '--drain'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    // The demo agent stands in for claude: what claude keeps in ~/.claude (which the sandbox
    // makes for it) stays in the demo's directory, outside which the demo makes nothing.
    env: { ...env, CLAUDE_CONFIG_DIR: path.join(root, 'state', 'demo-agent') },
  });
  const interrupted = () => {};
  const terminated = () => child.kill('SIGTERM');
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', terminated);
  return new Promise<number>((resolve) => {
    child.once('error', () => resolve(ExitCode.agentUnavailable));
    child.once('exit', (code, signal) =>
      resolve(code ?? (signal === null ? ExitCode.agentUnavailable : signalExitCode(signal))),
    );
  }).finally(() => {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', terminated);
  });
}
