import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Argv } from '../agent/argv.js';
import type { AgentCli } from '../agent/clis/index.js';
import type { EnteredGate } from '../gates/gates.js';
import type { SandboxSettings } from '../agent/settings.js';
import { gitCommonDir } from '../git/worktree.js';
import { writeFileAtomically } from '../lib/fs.js';
import { proxyVariables, sandboxArgv } from './bwrap.js';
import { isWithin } from '../lib/fs.js';
import { parseAllowedHost } from './hosts.js';
import { expandHome, sandboxLayout } from './layout.js';
import { bubblewrapOf } from './probe.js';
import type { EgressDoor, EgressProxy, EgressRefusal } from './proxy.js';
import type { Workspace } from '../config/workspace.js';

/** A small file's text, read at once (a supervision tick looks every second), or undefined. */
function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** One command (an agent, or a session's gates) in its sandbox: how to start it, and its door out. */
export interface Sandboxed {
  argv: Argv;
  env: Record<string, string>;
  /**
   * The pause the agent asked for through `$INTERRUPT_FILE` (its reason), or undefined: inside,
   * that path is a file of the session's own, for the workspace's state is out of its reach.
   */
  interruptRequest(): string | undefined;
  /** Closes the proxy's door (refusals after this are not heard), and removes the stand-ins. */
  close(): Promise<void>;
}

/** What is put in a sandbox: an agent session (its CLI's state and API), or its gates. */
export interface SandboxRequest {
  sandbox: SandboxSettings;
  /** The agent's CLI; undefined for gates, which get `allowHosts` alone (nothing with `none`). */
  cli?: AgentCli;
  argv: Argv;
  env: Readonly<Record<string, string>>;
  workDir: string;
  /** Git mode: the worktree it works in (the item's, or the lander's). */
  worktree?: string;
  /** The work dir and worktree only read (a reviewer): writes there fail. */
  readOnlyWork?: boolean;
  /** Directories the CLI made for itself (a temp dir of its own): read-write. */
  dirs?: string[];
  /** The workspace's interrupt file, stood in for inside by a file of the session's own. */
  interrupt?: { file: string; standIn: string };
  onRefused: (refusal: EgressRefusal) => void;
}

/**
 * Puts a command in the bubblewrap sandbox its settings ask for: the layout found, a door of
 * the runner's proxy opened when the network is ralph's to filter, the proxy's variables set.
 * A problem (the program nowhere to be found) is returned, never a run without the sandbox.
 */
/** What entering a sandbox needs of the runner: its proxy, its environment, the workspace. */
export interface SandboxHost {
  egress: EgressProxy;
  parentEnv: Readonly<Record<string, string | undefined>>;
  workspace: Workspace;
}

export async function enterSandbox(
  ctx: SandboxHost,
  request: SandboxRequest,
): Promise<Sandboxed | { problem: string }> {
  const { sandbox, cli, env, interrupt } = request;
  if (interrupt !== undefined) await writeFileAtomically(interrupt.standIn, '');
  const home = env.HOME ?? '/';
  const hosts =
    sandbox.network === 'open'
      ? undefined
      : [
          ...(cli?.sandbox.apiHosts(env) ?? []),
          ...(sandbox.network === 'allow' ? sandbox.allowHosts : []),
        ];
  let door: EgressDoor | undefined;
  if (hosts !== undefined && hosts.length > 0)
    door = await ctx.egress.open(hosts.map(parseAllowedHost), request.onRefused);
  const allowed = hosts?.map(parseAllowedHost) ?? [];
  const layout = await sandboxLayout({
    inner: request.argv,
    env,
    workDir: request.workDir,
    state: cli?.sandbox.state(env, home) ?? [],
    readOnly: sandbox.readOnly,
    readWrite: [...sandbox.readWrite.map((p) => expandHome(p, home)), ...(request.dirs ?? [])],
    standIns: interrupt === undefined ? [] : [{ source: interrupt.standIn, path: interrupt.file }],
    // The workspace's state and configuration are never the agent's to read or change.
    hidden: [ctx.workspace.paths.root, ctx.workspace.paths.state, ctx.workspace.paths.sessions],
    git:
      request.worktree === undefined
        ? undefined
        : { worktree: request.worktree, commonDir: await gitCommonDir(request.worktree) },
    readOnlyWork: request.readOnlyWork,
    network: sandbox.network === 'open' ? 'open' : 'closed',
    proxy: door === undefined ? undefined : { socket: door.socket, allowed },
    bwrap: bubblewrapOf(ctx.parentEnv),
  });
  if ('problem' in layout) {
    await door?.close();
    return layout;
  }
  // Made now, so that the CLI's state outlives the sandbox (a resumed conversation needs it).
  for (const dir of cli?.sandbox.state(env, home) ?? [])
    if (path.extname(dir) === '') await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    argv: sandboxArgv(request.argv, layout),
    env: {
      ...env,
      ...(layout.proxy === undefined ? {} : proxyVariables(layout.proxy.port)),
    },
    interruptRequest: () => {
      if (interrupt === undefined) return undefined;
      const reason = readIfThere(interrupt.standIn)?.trim() ?? '';
      return reason === '' ? undefined : reason;
    },
    close: async () => {
      await door?.close();
      if (interrupt !== undefined) await fsp.rm(interrupt.standIn, { force: true });
    },
  };
}

/**
 * The interrupt file an agent in the sandbox writes: a stand-in of the session's own, unless its
 * work dir holds the workspace (no git mode) and so reaches the file itself.
 */
export async function interruptStandIn(
  paths: { interruptFile: string; state: string },
  workDir: string,
  sessionId: string,
): Promise<SandboxRequest['interrupt']> {
  if (isWithin(paths.interruptFile, workDir)) return undefined;
  const standIns = path.join(paths.state, 'sandbox');
  await fsp.mkdir(standIns, { recursive: true, mode: 0o700 });
  return { file: paths.interruptFile, standIn: path.join(standIns, `${sessionId}-interrupt.txt`) };
}

/**
 * How the commands of an item's sandbox that are not its agent (its gates, setup commands and
 * services) enter it: each in a sandbox of its own; none without one.
 */
export function gateEntry(
  host: SandboxHost,
  request: Omit<SandboxRequest, 'argv' | 'cli'>,
): ((command: readonly string[]) => Promise<EnteredGate | { problem: string }>) | undefined {
  if (request.sandbox.kind === 'none') return undefined;
  return (command) =>
    enteredGate(
      enterSandbox(host, { ...request, argv: { file: command[0] ?? '', args: command.slice(1) } }),
    );
}

/** A gate's command in its sandbox, as the gates run it (or why it cannot be: never a throw). */
async function enteredGate(
  entering: Promise<Sandboxed | { problem: string }>,
): Promise<EnteredGate | { problem: string }> {
  const entered = await entering.catch((error: unknown) => ({
    problem: `the sandbox could not be made: ${error instanceof Error ? error.message : String(error)}`,
  }));
  if ('problem' in entered) return entered;
  return {
    command: [entered.argv.file, ...entered.argv.args],
    env: entered.env,
    close: () => entered.close(),
  };
}
