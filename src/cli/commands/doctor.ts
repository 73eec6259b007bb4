import fs from 'node:fs';
import { plural } from '../../lib/text.js';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { credentialsOf } from '../../agent/availability.js';
import { which } from '../../lib/which.js';
import { loginProblem } from '../../agent/login.js';
import { cliNamed, commandOf } from '../../agent/clis/index.js';
import type { CliName } from '../../config/cli-names.js';
import { runToEnd } from '../../agent/process.js';
import { ConfigSchema } from '../../config/schema.js';
import { CONFIG_FILE } from '../../config/config-file.js';
import { ControlFiles } from '../../control/files.js';
import {
  loadWorkspace,
  workspacePaths,
  type Workspace,
  workspaceLowOnSpace,
  workDirProblem,
} from '../../config/workspace.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { loadPersona } from '../../persona/persona.js';
import { FileCache } from '../../lib/file-cache.js';
import { BUILTIN_VARS } from '../../queue/item.js';
import { withQueue, withQueueReader } from '../../queue/open.js';
import { locateGateProgram } from '../../gates/gates.js';
import { InputError } from '../../lib/errors.js';
import { checkRunnable } from '../../workspace/admission.js';
import { flagOf } from '../item-flags.js';
import { liveRunner } from '../../control/runner-lock.js';
import { readBudget } from '../../control/budget.js';
import {
  clisInUse as itemClisInUse,
  fallbackClisInUse,
  fallbackProblem,
} from '../../runner/index.js';
import { placeholders } from '../../template/render.js';
import type { Output } from '../output.js';
import { redactorFor } from '../../agent/redaction.js';
import { checkSetup } from './doctor-setup.js';
import { bubblewrapOf, probeSandbox } from '../../sandbox/probe.js';
import { openForge } from '../../forge/open.js';
import { remoteUrl, repositoryRoot } from '../../git/worktree.js';
import { checkCliInSandbox } from './doctor-sandbox.js';
import { checkLinear } from './doctor-linear.js';
import type { Check } from './doctor-check.js';
import { statusIs } from '../../queue/item-status.js';

/**
 * A detail as plain text: control bytes (a terminal escape in a binary's output, say) are shown
 * as escapes, never sent to the terminal; further lines are indented under the first.
 */
function printable(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) =>
      line.replace(
        /[\p{Cc}\u2028\u2029]/gu,
        (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
      ),
    )
    .join(`\n${' '.repeat(16)}`);
}

/**
 * The CLIs the workspace may run: its default, those its unfinished items name, and those
 * they (or the workspace) may fall back on.
 */
async function clisInUse(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CliName[]> {
  const items = await withQueueReader(workspace, env, (queue) => queue.list()).catch(() => []);
  const used = await itemClisInUse(workspace, items, new FileCache());
  return [...new Set([workspace.config.defaults.cli, ...used.map(({ cli }) => cli)])];
}

/** Placeholders whose value is the same for every item of a workspace. */
const WORKSPACE_VARS = new Set(['INTERRUPT_FILE', 'RIG']);

/**
 * The standing instructions' template: its placeholders known, and none of an item's, which
 * would make every item's system prompt differ and so miss the model API's prompt cache.
 */
async function checkInstructions(
  file: string,
  vars: Readonly<Record<string, string>>,
  itemVars: Iterable<string>,
): Promise<Check> {
  const template = await fsp.readFile(file, 'utf8').catch(() => undefined);
  if (template === undefined)
    return {
      verdict: 'ok',
      name: 'instructions',
      detail: `${file}: none (every session's system prompt is ralph's identity, the project's context and the persona)`,
    };
  const names = placeholders(template);
  const known = new Set<string>([...BUILTIN_VARS, ...Object.keys(vars), ...itemVars]);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0)
    return {
      verdict: 'FAIL',
      name: 'instructions',
      detail: `${file}: unknown placeholders ${unknown.map((n) => `{{${n}}}`).join(', ')}`,
    };
  const perItem = names.filter((name) => !WORKSPACE_VARS.has(name) && !(name in vars));
  if (perItem.length === 0) return { verdict: 'ok', name: 'instructions', detail: file };
  return {
    verdict: 'warn',
    name: 'instructions',
    detail: `${file} uses ${perItem.map((n) => `{{${n}}}`).join(', ')}: each item's system prompt then differs from there on, so the prompt cache cannot serve it from the item before (about ${Math.round(template.length / 4)} tokens of every session's first request, besides the CLI's own prompt after it); the bootstrap template (the item's assignment) is their place`,
  };
}

/** The variables that are set. */
const definedOf = (env: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/** One agent CLI: found, in the version range ralph is tested with, and able to log in. */
async function checkCli(
  workspace: Workspace,
  name: CliName,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check[]> {
  const cli = cliNamed(name);
  const [command, ...leading] = commandOf(workspace.config, name);
  const setting = `clis.${name}.command`;
  const found = command === undefined ? undefined : which(command, env.PATH);
  if (found === undefined) {
    return [
      {
        verdict: 'FAIL',
        name,
        detail: `${command ?? '(empty)'} not found (PATH or "${setting}" in ${CONFIG_FILE}; install: ${cli.install})`,
      },
    ];
  }
  const checks: Check[] = [{ verdict: 'ok', name, detail: found }];
  const tested = `${cli.tested.major}.${cli.tested.minor}.x`;
  try {
    const stdout = await runToEnd(found, [...leading, '--version'], {
      timeoutMs: 20_000,
      env: { ...env, CLAUDECODE: undefined },
    });
    const version = /(\d+)\.(\d+)\.(\d+)/.exec(stdout);
    if (version === null) {
      checks.push({
        verdict: 'FAIL',
        name: 'version',
        detail: `${name}: no version in ${JSON.stringify(stdout.trim().slice(0, 80))}`,
      });
    } else {
      const inRange =
        Number(version[1]) === cli.tested.major && Number(version[2]) === cli.tested.minor;
      checks.push({
        verdict: inRange ? 'ok' : 'FAIL',
        name: 'version',
        detail: `${name} ${version[0]}${inRange ? '' : ` is outside the range ralph is tested with (${tested})`}`,
      });
    }
  } catch (error) {
    checks.push({
      verdict: 'FAIL',
      name: 'version',
      detail: `${found} --version failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    });
  }
  const credentials = credentialsOf(cli, env);
  // As the run asks it before a night (run.checkLogins): the API or the CLI's own word.
  const login = workspace.config.run.checkLogins
    ? await loginProblem(cli, [found, ...leading], definedOf(env), Date.now())
    : undefined;
  checks.push(
    login !== undefined && 'problem' in login
      ? { verdict: 'FAIL', name: 'auth', detail: login.problem }
      : login !== undefined
        ? { verdict: 'ok', name: 'auth', detail: login.confirmed }
        : credentials.kind === 'variable'
          ? {
              verdict: 'ok',
              name: 'auth',
              detail: `${credentials.name} is set (passed to ${name})`,
            }
          : credentials.kind === 'login'
            ? { verdict: 'ok', name: 'auth', detail: `${name}: logged in (${credentials.file})` }
            : { verdict: 'FAIL', name: 'auth', detail: credentials.problem },
  );
  return checks;
}

/** The sandbox the workspace asks for, and whether bubblewrap can make it here. */
async function checkSandbox(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check> {
  const { sandbox } = workspace.config;
  const probe = await probeSandbox(bubblewrapOf(env));
  if (sandbox.kind === 'bwrap') {
    if (!probe.ok)
      return {
        verdict: 'FAIL',
        name: 'sandbox',
        detail: `sandbox.kind is "bwrap", and ${probe.problem}: no item that asks for it will start`,
      };
    const hosts =
      sandbox.network === 'open'
        ? "the machine's network"
        : `network "${sandbox.network}": the CLI's API${sandbox.network === 'allow' && sandbox.allowHosts.length > 0 ? ` and ${sandbox.allowHosts.join(', ')}` : ''} through ralph's proxy`;
    return {
      verdict: 'ok',
      name: 'sandbox',
      detail: `bubblewrap: the work dir alone writable, HOME empty but for the CLI's state, its own processes, ${hosts}`,
    };
  }
  return {
    verdict: 'warn',
    name: 'sandbox',
    detail: probe.ok
      ? 'none: bubblewrap works here; set "sandbox": { "kind": "bwrap" } to hold each agent and its gates to their work dir and allowed hosts'
      : `none, and ${probe.problem}`,
  };
}

/** What the agent may do to the machine outside a sandbox: the allowlist is the CLI's. */
function checkScope(workspace: Workspace): Check[] {
  const checks: Check[] = [];
  if (workspace.config.sandbox.kind === 'bwrap') return checks;
  const allowed = workspace.config.defaults.allowedTools;
  const unscoped = allowed.filter((rule) => rule === 'Write' || rule === 'Edit');
  if (unscoped.length > 0) {
    checks.push({
      verdict: 'warn',
      name: 'scope',
      detail: `defaults.allowedTools has ${unscoped.join(', ')} without a path: the agent may change files anywhere; use "Edit(./**)"`,
    });
  }
  if (allowed.includes('Bash') || workspace.config.yolo) {
    checks.push({
      verdict: 'warn',
      name: 'scope',
      detail:
        'the agent may run any command (Bash): it can change whatever this user can; run ralph as an unprivileged user, in a container or a VM',
    });
  }
  if (process.getuid?.() === 0) {
    checks.push({
      verdict: 'warn',
      name: 'user',
      detail: 'ralph runs as root: its agents can change anything on this machine',
    });
  }
  return checks;
}

async function checkWorkspace(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check[]> {
  const { paths, config } = workspace;
  const checks: Check[] = [];
  for (const dir of [paths.state, paths.sessions]) {
    const probe = path.join(dir, `.doctor-${process.pid}`);
    try {
      await fsp.writeFile(probe, '', { flag: 'wx', mode: 0o600 });
      await fsp.rm(probe);
      checks.push({ verdict: 'ok', name: 'writable', detail: dir });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      checks.push({ verdict: 'FAIL', name: 'writable', detail: `${dir}: ${code}` });
    }
  }
  const low = workspaceLowOnSpace(workspace);
  checks.push(
    low === undefined
      ? { verdict: 'ok', name: 'disk', detail: `at least ${config.run.minFreeBytes} bytes free` }
      : { verdict: 'FAIL', name: 'disk', detail: `${low}: ralph would pause` },
  );
  let itemVars = new Set<string>();
  try {
    const { where, items } = await withQueue(workspace, env, async (queue) => ({
      where: queue.where,
      items: await queue.list(),
    }));
    itemVars = new Set(items.flatMap((item) => Object.keys(item.vars)));
    checks.push({
      verdict: 'ok',
      name: 'queue',
      detail: `${where}: ${plural(items.length, 'item')}`,
    });
  } catch (error) {
    checks.push({
      verdict: 'FAIL',
      name: 'queue',
      detail: error instanceof Error ? error.message : String(error),
    });
  }
  const template = await fsp.readFile(paths.bootstrap, 'utf8').catch(() => undefined);
  if (template === undefined) {
    checks.push({ verdict: 'FAIL', name: 'template', detail: `${paths.bootstrap} cannot be read` });
  } else {
    const known = new Set<string>([...BUILTIN_VARS, ...Object.keys(config.vars), ...itemVars]);
    const unknown = placeholders(template).filter((name) => !known.has(name));
    checks.push(
      unknown.length === 0
        ? { verdict: 'ok', name: 'template', detail: paths.bootstrap }
        : {
            verdict: 'FAIL',
            name: 'template',
            detail: `${paths.bootstrap}: unknown placeholders ${unknown.map((n) => `{{${n}}}`).join(', ')}`,
          },
    );
  }
  checks.push(await checkInstructions(paths.instructions, config.vars, itemVars));
  const cache = new FileCache();
  for (const name of (await fsp.readdir(paths.agents).catch(() => [] as string[])).filter((n) =>
    /^AGENT_.+\.md$/.test(n),
  )) {
    const id = name.slice(6, -3);
    try {
      await loadPersona(paths.agents, id, cache);
      checks.push({ verdict: 'ok', name: 'persona', detail: id });
    } catch (error) {
      checks.push({
        verdict: 'FAIL',
        name: 'persona',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  try {
    const budget = await readBudget(paths.budget);
    checks.push({
      verdict: 'ok',
      name: 'budget',
      detail: `${paths.budget}: $${budget.totalCostUsd.toFixed(4)} in ${plural(budget.iterations, 'session')}`,
    });
  } catch (error) {
    checks.push({
      verdict: 'FAIL',
      name: 'budget',
      detail: error instanceof Error ? error.message : String(error),
    });
  }
  checks.push(await checkSandbox(workspace, env), ...checkScope(workspace));
  const reason = await new ControlFiles(paths).pauseReason();
  checks.push(
    reason === undefined
      ? { verdict: 'ok', name: 'pause', detail: 'not paused' }
      : { verdict: 'warn', name: 'pause', detail: `paused: ${reason} (ralph resume)` },
  );
  const runner = await liveRunner(paths.runnerLock);
  checks.push({
    verdict: 'ok',
    name: 'runner',
    detail: runner ? `running (pid ${runner.pid})` : 'none running',
  });
  return checks;
}

/**
 * The forge: its remote is one of the repository's, its token is set, and a read of the
 * repository with it works and may push (the token itself is never shown).
 */
async function checkForge(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check[]> {
  const forge = workspace.config.forge;
  if (forge === undefined) return [];
  const workDir = path.resolve(workspace.root, workspace.config.defaults.workDir ?? '.');
  const repo = await repositoryRoot(workDir);
  if (repo === undefined)
    return [{ verdict: 'FAIL', name: 'forge', detail: `${workDir} is in no git repository` }];
  const url = await remoteUrl(repo, forge.remote).catch(() => undefined);
  if (url === undefined)
    return [
      {
        verdict: 'FAIL',
        name: 'forge',
        detail: `the repository ${repo} has no remote ${forge.remote} (forge.remote)`,
      },
    ];
  try {
    const client = await openForge({ ...forge, token: env[forge.tokenEnv], remoteUrl: url });
    const found = await client.repository();
    const ok = found.canPush && found.lacks === undefined;
    return [
      {
        verdict: ok ? 'ok' : 'FAIL',
        name: 'forge',
        detail: ok
          ? `${found.name} on ${forge.apiUrl}, pushed to through ${forge.remote}; the token in ${forge.tokenEnv} reads it`
          : found.lacks !== undefined
            ? `the token in ${forge.tokenEnv} reads ${found.name} but lacks the scope ${found.lacks}: give it that scope to open merge requests and write notes`
            : `the token in ${forge.tokenEnv} reads ${found.name} but may not push to it`,
      },
    ];
  } catch (error) {
    const message = redactorFor(workspace, env).redact(
      error instanceof Error ? error.message : String(error),
    );
    return [{ verdict: 'FAIL', name: 'forge', detail: message }];
  }
}

/**
 * Each notifier can be reached as configured: the variables it names are set, a command's
 * program is found (nothing is sent: `ralph notify test` sends).
 */
function checkNotify(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Check[] {
  return workspace.config.notify.map((notifier, index): Check => {
    const name = `notify[${index}] (${notifier.kind})`;
    const events = notifier.events === undefined ? 'every event' : notifier.events.join(', ');
    if (notifier.kind === 'command') {
      const [program = ''] = notifier.command;
      const found = program.includes('/') ? program : which(program, env.PATH);
      return found === undefined
        ? { verdict: 'FAIL', name: 'notify', detail: `${name}: ${program} is not on PATH` }
        : { verdict: 'ok', name: 'notify', detail: `${name}: ${found}, for ${events}` };
    }
    const variables = [
      ['urlEnv', notifier.urlEnv],
      ...(notifier.kind === 'webhook' ? [['secretEnv', notifier.secretEnv]] : []),
      ...(notifier.kind === 'ntfy' ? [['tokenEnv', notifier.tokenEnv]] : []),
    ].filter((pair): pair is [string, string] => pair[1] !== undefined);
    const unset = variables.filter(([, variable]) => (env[variable] ?? '') === '');
    return unset.length > 0
      ? {
          verdict: 'FAIL',
          name: 'notify',
          detail: `${name}: ${unset.map(([key, variable]) => `${variable} (${key})`).join(', ')} not set: it would not be sent`,
        }
      : { verdict: 'ok', name: 'notify', detail: `${name}, for ${events}` };
  });
}

/**
 * Git mode, the gates and the items: git is found when git mode is on, each configured gate's
 * program is found, and every unfinished item passes the checks of `ralph add` (its base, its
 * gates, its persona and work dir).
 */
/** The project the night works on ("defaults.workDir"): named, a directory, not the workspace's. */
function checkProject({ config, paths, root }: Workspace): Check {
  const named = config.defaults.workDir;
  const dir = named === undefined ? undefined : path.resolve(root, named);
  const problem = workDirProblem(paths, dir);
  if (problem !== undefined)
    return { verdict: named === undefined ? 'warn' : 'FAIL', name: 'project', detail: problem };
  return dir !== undefined && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true
    ? { verdict: 'ok', name: 'project', detail: dir }
    : { verdict: 'FAIL', name: 'project', detail: `"defaults.workDir" ${named}: not a directory` };
}

async function checkWork(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check[]> {
  const checks: Check[] = [checkProject(workspace)];
  const { config } = workspace;
  if (config.git.enabled) {
    const git = which('git', env.PATH);
    checks.push(
      git === undefined
        ? {
            verdict: 'FAIL',
            name: 'git',
            detail: 'git mode is on ("git.enabled") but git is not on PATH',
          }
        : {
            verdict: 'ok',
            name: 'git',
            detail: `${git}${config.git.push ? `, pushes to ${config.git.push}` : ''}`,
          },
    );
  }
  const workDir = path.resolve(workspace.root, config.defaults.workDir ?? '.');
  for (const gate of config.gates) {
    const found = await locateGateProgram(gate, workDir, env.PATH);
    checks.push(
      'problem' in found
        ? { verdict: 'FAIL', name: 'gate', detail: found.problem }
        : {
            verdict: 'ok',
            name: 'gate',
            detail: `${gate.name} (${found.file}, timeout ${gate.timeout} s)`,
          },
    );
  }
  if (config.forge !== undefined) checks.push(...(await checkForge(workspace, env)));
  checks.push(...(await checkLinear(workspace, env)));
  checks.push(...checkNotify(workspace, env));
  // What each unfinished item needs to run, as `ralph add` checks it: found now, not at night.
  const items = await withQueueReader(workspace, env, (queue) => queue.list()).catch(() => []);
  for (const item of items.filter((i) => statusIs(i.status, 'runnable'))) {
    try {
      await checkRunnable(workspace, item, flagOf, env.PATH);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      checks.push({ verdict: 'FAIL', name: 'item', detail: `${item.id}: ${error.message}` });
    }
  }
  return checks;
}

function printChecks(output: Output, checks: readonly Check[], redact: (text: string) => string) {
  for (const check of checks)
    output.out(
      `${check.verdict.padEnd(4)}  ${check.name.padEnd(12)} ${printable(redact(check.detail))}`,
    );
}

/** `ralph doctor`: one line per check; non-zero when something is wrong. */
export async function doctorCommand(
  root: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
  options: { setup?: boolean } = {},
): Promise<number> {
  const checks: Check[] = [];
  let workspace: Workspace | undefined;
  try {
    workspace = await loadWorkspace(root);
    checks.push({ verdict: 'ok', name: 'config', detail: workspace.paths.config });
  } catch (error) {
    checks.push({
      verdict: 'FAIL',
      name: 'config',
      detail: error instanceof Error ? error.message : String(error),
    });
  }
  if (workspace === undefined) {
    // Every other check reads the configuration: none is said of defaults it does not hold.
    const config = ConfigSchema.parse({});
    const fallback = {
      root: path.resolve(root),
      config,
      paths: workspacePaths(path.resolve(root), config),
    };
    if (!fs.existsSync(fallback.paths.state))
      checks.push({
        verdict: 'FAIL',
        name: 'workspace',
        detail: `${path.resolve(root)} is not a ralph workspace (run "ralph init")`,
      });
    const redactor = redactorFor(fallback, env);
    printChecks(output, checks, (text) => redactor.redact(text));
    output.out(
      'The other checks need a valid configuration: fix it, then run "ralph doctor" again.',
    );
    return ExitCode.usage;
  }
  if (!fs.existsSync(workspace.paths.state)) {
    checks.push({
      verdict: 'FAIL',
      name: 'workspace',
      detail: `${workspace.root} is not a ralph workspace (run "ralph init")`,
    });
  } else {
    checks.push(...(await checkWorkspace(workspace, env)));
  }
  for (const name of await clisInUse(workspace, env)) {
    const cli = await checkCli(workspace, name, env);
    checks.push(...cli);
    if (cli[0]?.verdict === 'ok' && workspace.config.sandbox.kind === 'bwrap')
      checks.push(await checkCliInSandbox(workspace, name, env));
  }
  for (const fallback of await fallbackClisInUse(workspace, [], new FileCache())) {
    const found = fallbackProblem(workspace, fallback, env);
    if (found !== undefined)
      checks.push({
        verdict: found.refuse ? 'FAIL' : 'warn',
        name: 'fallback',
        detail: found.problem,
      });
  }
  checks.push(...(await checkWork(workspace, env)));
  if (options.setup === true) checks.push(await checkSetup(workspace, env));
  const redactor = redactorFor(workspace, env);
  printChecks(output, checks, (text) => redactor.redact(text));
  const failed = checks.filter((c) => c.verdict === 'FAIL').length;
  output.out(failed === 0 ? 'All checks passed.' : `${plural(failed, 'check')} failed.`);
  return failed === 0 ? ExitCode.ok : ExitCode.itemsFailed;
}
