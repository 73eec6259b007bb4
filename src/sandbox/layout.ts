import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  isWithin,
  type Command,
  type Mount,
  type SandboxLayout,
  type SystemEntry,
} from './bwrap.js';
import { loopbackForwards, type AllowedHost } from './hosts.js';
import { SANDBOX_LAUNCHER } from '../lib/package-files.js';
import { SANDBOX_PERL } from './probe.js';

/** The system, given read-only: programs, libraries and machine-wide configuration. */
const SYSTEM_DIRS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
];

/** The proxy's port inside, unless an allowed loopback endpoint has it. */
const PROXY_PORT = 3128;

/** What a sandbox is made for: one agent session or one session's gates. */
export interface LayoutRequest {
  /** What runs inside; its absolute paths (the prompt file, a script) are given read-only. */
  inner: Command;
  env: Readonly<Record<string, string>>;
  workDir: string;
  /** Paths the CLI keeps its own state in (under HOME): given read-write. */
  state: string[];
  readOnly: string[];
  readWrite: string[];
  /** Files bound read-write at another path inside (the interrupt file, one of the session's). */
  standIns?: { source: string; path: string }[];
  /**
   * Git mode: the item's worktree (read-write) and the repository's git dir (its objects and
   * refs), whose config and hooks stay read-only, as does the worktree's `.git` link to it.
   */
  git?: { worktree: string; commonDir: string };
  network: 'open' | 'closed';
  /** The proxy's socket and the hosts it lets through, when the network is closed but not shut. */
  proxy?: { socket: string; allowed: readonly AllowedHost[] };
  bwrap: string;
}

const exists = (p: string) =>
  fsp.lstat(p).then(
    () => true,
    () => false,
  );

async function systemEntries(): Promise<SystemEntry[]> {
  const entries: SystemEntry[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stat = await fsp.lstat(dir).catch(() => undefined);
    if (stat === undefined) continue;
    entries.push(
      stat.isSymbolicLink() ? { path: dir, symlink: await fsp.readlink(dir) } : { path: dir },
    );
  }
  return entries;
}

const isFile = (p: string) =>
  fsp.stat(p).then(
    (stat) => stat.isFile(),
    () => false,
  );

/** Where `file` is found, as the spawn inside will look for it (PATH for a bare name). */
async function locate(file: string, env: Readonly<Record<string, string>>, cwd: string) {
  if (file.includes('/')) {
    const full = path.resolve(cwd, file);
    return (await exists(full)) ? full : undefined;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter((d) => d !== '')) {
    const full = path.join(path.resolve(cwd, dir), file);
    if (await exists(full)) return full;
  }
  return undefined;
}

/**
 * The directory to give for a program or script at `file`: the `node_modules` it is in (its
 * package's dependencies sit beside it), else its package's root (where its `package.json` is),
 * else its own directory.
 */
async function programDir(file: string): Promise<string> {
  const parts = file.split(path.sep);
  const index = parts.lastIndexOf('node_modules');
  if (index > 0) return parts.slice(0, index + 1).join(path.sep);
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir))
    if (await exists(path.join(dir, 'package.json'))) return dir;
  return path.dirname(file);
}

/** `~/x` as an absolute path under `home`. */
export const expandHome = (p: string, home: string) =>
  p.startsWith('~/') ? path.join(home, p.slice(2)) : p;

/**
 * Finds what the sandbox must hold for `request`: the program and what it runs with (its
 * package, node, the PATH's directories outside the system), the files its command names,
 * the CLI's own state, git's configuration (read-only, so commits carry the person's name).
 * Returns a problem when the program is nowhere to be found.
 */
export async function sandboxLayout(
  request: LayoutRequest,
): Promise<SandboxLayout | { problem: string }> {
  const { inner, env, workDir } = request;
  const home = env.HOME ?? '/';
  const system = await systemEntries();
  const inSystem = (p: string) => system.some((entry) => isWithin(p, entry.path));
  const program = await locate(inner.file, env, workDir);
  if (program === undefined)
    return { problem: `${inner.file}: command not found (on the PATH given to the sandbox)` };
  const mounts: Mount[] = [];
  const readOnly = (p: string, optional = false) => {
    if (!inSystem(p) && !isWithin(p, workDir)) mounts.push({ path: p, mode: 'ro', optional });
  };
  readOnly(await programDir(await fsp.realpath(program)));
  if (!program.includes(`${path.sep}node_modules${path.sep}`)) readOnly(path.dirname(program));
  // An interpreter's script (`node cli.js`): its package is the program.
  const [script] = inner.args;
  if (script !== undefined && path.isAbsolute(script) && (await isFile(script)))
    readOnly(await programDir(await fsp.realpath(script)));
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir) || !(await exists(dir))) continue;
    readOnly(path.basename(dir) === '.bin' ? path.dirname(dir) : dir);
  }
  for (const arg of inner.args) if (path.isAbsolute(arg) && (await exists(arg))) readOnly(arg);
  for (const file of ['.gitconfig', '.config/git']) readOnly(path.join(home, file), true);
  for (const p of request.readOnly) readOnly(expandHome(p, home), true);
  for (const p of [...request.state, ...request.readWrite.map((p) => expandHome(p, home))])
    mounts.push({ path: p, mode: 'rw', optional: true });
  for (const { source, path: inside } of request.standIns ?? [])
    mounts.push({ path: inside, source, mode: 'rw' });
  if (request.git !== undefined) {
    const { worktree, commonDir } = request.git;
    mounts.push({ path: worktree, mode: 'rw' }, { path: commonDir, mode: 'rw' });
    // What git runs outside the sandbox afterwards, for ralph: never the agent's to change.
    for (const name of ['config', 'hooks', 'info'])
      mounts.push({ path: path.join(commonDir, name), mode: 'ro', optional: true });
    mounts.push({ path: path.join(worktree, '.git'), mode: 'ro', optional: true });
  }
  const forwards = request.proxy === undefined ? [] : loopbackForwards(request.proxy.allowed);
  let port = PROXY_PORT;
  while (forwards.some((f) => f.port === port)) port++;
  return {
    bwrap: request.bwrap,
    perl: SANDBOX_PERL,
    launcher: SANDBOX_LAUNCHER,
    system,
    home,
    workDir,
    mounts,
    network: request.network,
    proxy:
      request.proxy === undefined ? undefined : { socket: request.proxy.socket, port, forwards },
  };
}
