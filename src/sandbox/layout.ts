import fsp from 'node:fs/promises';
import path from 'node:path';
import { type Command, type Mount, type SandboxLayout, type SystemEntry } from './bwrap.js';
import { loopbackForwards, type AllowedHost } from './hosts.js';
import { SANDBOX_LAUNCHER } from '../lib/package-files.js';
import { SANDBOX_PERL } from './probe.js';
import { isWithin } from '../lib/fs.js';

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
   * Directories shown empty inside whatever else is given (the workspace: its state and
   * configuration), but for what is given deeper in them; also when the work dir holds them.
   */
  hidden?: string[];
  /**
   * Git mode: the item's worktree (read-write) and the repository's git dir (its objects and
   * refs), whose config and hooks stay read-only, as does the worktree's `.git` link to it.
   */
  git?: { worktree: string; commonDir: string };
  /** The work dir and the worktree only read (a reviewer's): nothing inside changes the work. */
  readOnlyWork?: boolean;
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

/** Whether `dir` is HOME or holds it: a directory never given whole, for it holds the user's secrets. */
const containsHome = (dir: string, home: string) => isWithin(home, dir);

/**
 * What to give for a program or script at `file` (its real path): the `node_modules` it is in
 * (its package's dependencies sit beside it), else its package's root (where its `package.json`
 * is, below HOME), else the file alone. Never a name pattern, never HOME or a folder above it.
 */
async function programPart(file: string, home: string): Promise<string> {
  const parts = file.split(path.sep);
  const index = parts.lastIndexOf('node_modules');
  if (index > 0) return parts.slice(0, index + 1).join(path.sep);
  for (let dir = path.dirname(file); !containsHome(dir, home); dir = path.dirname(dir)) {
    if (await exists(path.join(dir, 'package.json'))) return dir;
    if (dir === path.dirname(dir)) break;
  }
  return file;
}

/**
 * What to give for a directory of the PATH: a `node_modules/.bin`'s `node_modules` (its links
 * lead there), else the directory itself; nothing for HOME or a folder above it.
 */
function pathDirPart(dir: string, home: string): string | undefined {
  const part =
    path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules'
      ? path.dirname(dir)
      : dir;
  return containsHome(part, home) ? undefined : part;
}

/** How many entries of a `PATH` directory are looked at for links: a bound, not a need. */
const MAX_PATH_ENTRIES = 512;

/** The real files the links of a `PATH` directory lead to. */
async function linkedPrograms(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const targets: string[] = [];
  for (const entry of entries.slice(0, MAX_PATH_ENTRIES)) {
    if (!entry.isSymbolicLink()) continue;
    const real = await fsp.realpath(path.join(dir, entry.name)).catch(() => undefined);
    if (real !== undefined && (await isFile(real))) targets.push(real);
  }
  return targets;
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
  const given = (p: string) =>
    inSystem(p) || isWithin(p, workDir) || mounts.some((m) => isWithin(p, m.path));
  const readOnly = (p: string, optional = false) => {
    if (!given(p)) mounts.push({ path: p, mode: 'ro', optional });
  };
  // What the program needs, from its real file; the PATH's directories themselves.
  const real = await fsp.realpath(program);
  readOnly(await programPart(real, home));
  // An interpreter's script (`node cli.js`): its package is the program.
  const [script] = inner.args;
  if (script !== undefined && path.isAbsolute(script) && (await isFile(script)))
    readOnly(await programPart(await fsp.realpath(script), home));
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir) || !(await exists(dir))) continue;
    const part = pathDirPart(dir, home);
    if (part === undefined || given(part)) continue;
    readOnly(part);
    // A link there (`~/.local/bin/claude` to its install) is a program a wrapper may run: what
    // it leads to is given as the program is.
    for (const target of await linkedPrograms(dir)) readOnly(await programPart(target, home));
  }
  // Found where nothing given holds it (a script in HOME, a link beside the workspace): the
  // program alone, as a link to its real file where it is one.
  if (!given(program))
    mounts.push(
      program === real
        ? { path: program, mode: 'ro' }
        : { path: program, source: real, mode: 'symlink' },
    );
  for (const arg of inner.args)
    if (path.isAbsolute(arg) && !containsHome(arg, home) && (await exists(arg))) readOnly(arg);
  for (const file of ['.gitconfig', '.config/git']) readOnly(path.join(home, file), true);
  for (const p of request.readOnly) readOnly(expandHome(p, home), true);
  for (const p of [...request.state, ...request.readWrite.map((p) => expandHome(p, home))])
    mounts.push({ path: p, mode: 'rw', optional: true });
  for (const dir of hiddenDirs(request.hidden ?? [], workDir))
    mounts.push({ path: dir, mode: 'hidden' });
  for (const { source, path: inside } of request.standIns ?? [])
    mounts.push({ path: inside, source, mode: 'rw' });
  const workMode = request.readOnlyWork === true ? 'ro' : 'rw';
  if (request.git !== undefined) mounts.push(...gitMounts(request.git, workMode));
  return {
    bwrap: request.bwrap,
    perl: SANDBOX_PERL,
    launcher: SANDBOX_LAUNCHER,
    system,
    home,
    workDir,
    workDirMode: workMode,
    mounts,
    network: request.network,
    proxy: request.proxy === undefined ? undefined : proxyOf(request.proxy),
  };
}

/**
 * The directories to show empty: each but the work dir itself (what is given deeper, the work
 * dir among it, is bound over them; a work dir holding one is bound under it), and none inside
 * another already shown empty.
 */
function hiddenDirs(dirs: readonly string[], workDir: string): string[] {
  const shown = dirs.filter((dir) => path.resolve(dir) !== path.resolve(workDir));
  return shown.filter((dir) => !shown.some((other) => other !== dir && isWithin(dir, other)));
}

/** Git mode: the worktree and the repository's git dir, what git runs outside read-only. */
function gitMounts(
  { worktree, commonDir }: { worktree: string; commonDir: string },
  mode: 'rw' | 'ro',
): Mount[] {
  return [
    { path: worktree, mode },
    { path: commonDir, mode },
    // What git runs outside the sandbox afterwards, for ralph: never the agent's to change.
    ...['config', 'hooks', 'info'].map((name): Mount => ({
      path: path.join(commonDir, name),
      mode: 'ro',
      optional: true,
    })),
    { path: path.join(worktree, '.git'), mode: 'ro', optional: true },
  ];
}

/** The proxy inside: its door, its port (clear of the loopback forwards), the forwards. */
function proxyOf(proxy: NonNullable<LayoutRequest['proxy']>): SandboxLayout['proxy'] {
  const forwards = loopbackForwards(proxy.allowed);
  let port = PROXY_PORT;
  while (forwards.some((f) => f.port === port)) port++;
  return { socket: proxy.socket, port, forwards };
}
