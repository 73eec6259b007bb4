import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { buildAgentEnv } from '../agent/env.js';
import { reapSession } from '../agent/process.js';
import type { SandboxSettings } from '../agent/settings.js';
import { runGates } from '../gates/gates.js';
import { readIfExists, writeFileAtomically } from '../lib/fs.js';
import type { Redactor } from '../lib/redact.js';
import type { EnvironmentKind } from '../queue/item.js';
import { gateEntry, type SandboxHost } from '../sandbox/entry.js';
import type { EgressRefusal } from '../sandbox/proxy.js';
import type { Gate } from '../gates/config-schema.js';
import type { EnvironmentConfig } from './config-schema.js';
import { dependencyStore, giveTree, type GivenTree } from './dependencies.js';
import { staleTrees } from './tree-keys.js';
import { copyWorktreeInclude } from './include.js';

/** Output of setup kept in its log (an install is chatty); the rest is dropped. */
const SETUP_OUTPUT_CAP = 8 * 1024 * 1024;

/** What making a worktree ready needs of its caller: the sandbox's host, and the redactor. */
export interface ReadyHost extends SandboxHost {
  redactor: Redactor;
}

/** One worktree to make ready: what for, where, and with what. */
export interface ReadyRequest {
  itemId: string;
  wanted: EnvironmentKind;
  environment: EnvironmentConfig;
  sandbox: SandboxSettings;
  /** The repository's main checkout (what `.worktreeinclude` copies from). */
  repo: string;
  worktree: string;
  /** The work dir inside the worktree: where the commands run. */
  workDir: string;
  /** Its log: the files copied, each command and its output (redacted once they end). */
  logFile: string;
  signal?: AbortSignal;
  onRefused: (refusal: EgressRefusal) => void;
}

/**
 * How it went: the files copied in, the dependency trees given, and the failing command with its
 * output, if one failed.
 */
export interface Readied {
  copied: string[];
  trees: GivenTree[];
  failure?: string;
  stopped: boolean;
}

/**
 * Makes a worktree ready: for a setup, the files the repository's `.worktreeinclude` lists that
 * git ignores copied in; then the dependency trees its lockfiles decide (built by their install
 * commands when none is); then the setup commands, or for a maintenance its commands. They run
 * in the work dir with the secrets named for them (never an agent's) and, under the sandbox, the
 * network to the hosts named for them besides the agent's.
 */
export async function makeReady(host: ReadyHost, request: ReadyRequest): Promise<Readied> {
  const { workspace } = host;
  const { environment, wanted, logFile } = request;
  const copied =
    wanted === 'setup' && environment.worktreeInclude
      ? await copyWorktreeInclude(request.repo, request.worktree)
      : [];
  if (copied.length > 0)
    fs.appendFileSync(
      logFile,
      `[.worktreeinclude: ${copied.length} copied: ${copied.join(', ')}]\n\n`,
      {
        mode: 0o600,
      },
    );
  const { config, paths } = workspace;
  // Marks what the commands start: a daemon an install left behind is found by it and ended.
  const marker = randomUUID();
  const { env } = buildAgentEnv(host.parentEnv, {
    deny: config.env.deny,
    allow: [...config.env.allow, ...environment.secrets],
    credentials: [],
    session: {
      sessionId: marker,
      itemId: request.itemId,
      iteration: 0,
      interruptFile: paths.interruptFile,
    },
  });
  const sandbox: SandboxSettings = {
    ...request.sandbox,
    network: request.sandbox.network === 'open' ? 'open' : 'allow',
    allowHosts: [...request.sandbox.allowHosts, ...environment.allowHosts],
  };
  const runCommands = (commands: readonly Gate[], kind: { short: string; long: string }) =>
    runGates(commands, {
      cwd: request.workDir,
      env,
      logFile,
      killGraceMs: config.run.killGrace * 1000,
      maxOutputBytes: SETUP_OUTPUT_CAP,
      signal: request.signal,
      kind,
      enter: gateEntry(host, {
        sandbox,
        env,
        workDir: request.workDir,
        worktree: request.worktree,
        onRefused: request.onRefused,
      }),
    });
  const trees: GivenTree[] = [];
  let run: { failure?: string; stopped: boolean } = { stopped: false };
  for (const tree of await staleTrees(
    environment.dependencies,
    request.worktree,
    request.workDir,
  )) {
    const outcome = await giveTree({
      store: dependencyStore(paths.worktrees),
      tree,
      worktree: request.worktree,
      workDir: request.workDir,
      install: () => runCommands(tree.install, { short: 'install', long: 'install command' }),
    });
    if (outcome.kind === 'stopped') run = { stopped: true };
    else if (outcome.kind === 'failed') run = { failure: outcome.failure, stopped: false };
    else {
      trees.push(outcome.tree);
      fs.appendFileSync(
        logFile,
        `[dependencies: ${outcome.tree.paths.join(', ')} (tree ${outcome.tree.key}, ${outcome.tree.given})]\n\n`,
        { mode: 0o600 },
      );
    }
    if (run.stopped || run.failure !== undefined) break;
  }
  if (!run.stopped && run.failure === undefined)
    run = await runCommands(wanted === 'setup' ? environment.setup : environment.maintenance, {
      short: wanted,
      long: `${wanted} command`,
    });
  await reapSession(undefined, marker, config.run.killGrace * 1000);
  const log = await readIfExists(logFile);
  if (log !== undefined) await writeFileAtomically(logFile, host.redactor.redact(log));
  return {
    copied,
    trees,
    failure: run.failure === undefined ? undefined : host.redactor.redact(run.failure),
    stopped: run.stopped,
  };
}
