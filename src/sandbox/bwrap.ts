/** A command as an argv array (never a shell string), and whatever else its spawner keeps with it. */
export interface Command {
  file: string;
  args: string[];
}

/**
 * A path given into the sandbox at the same place, read-only or read-write; an empty directory
 * hiding what is there outside (`hidden`); or a symlink made again (`symlink`, to `source`).
 */
export interface Mount {
  /** Where it is inside. */
  path: string;
  /** What is bound there, when not the same path outside; a symlink's target. */
  source?: string;
  mode: 'ro' | 'rw' | 'hidden' | 'symlink';
  /** Whether a missing path is skipped rather than an error. */
  optional?: boolean;
}

/** bubblewrap's arguments for one mount. */
function mountArgs(mount: Mount): string[] {
  switch (mount.mode) {
    case 'hidden':
      return ['--tmpfs', mount.path];
    case 'symlink':
      return ['--symlink', mount.source ?? mount.path, mount.path];
    default: {
      const flag = `--${mount.mode === 'ro' ? 'ro-' : ''}bind${mount.optional === true ? '-try' : ''}`;
      return [flag, mount.source ?? mount.path, mount.path];
    }
  }
}

/** A top-level system directory: bound read-only, or a symlink (`/bin` → `usr/bin`) made again. */
export interface SystemEntry {
  path: string;
  symlink?: string;
}

/** Where the proxy's socket is inside the sandbox. */
export const PROXY_SOCKET_INSIDE = '/run/ralph/egress.sock';

/** Everything a sandbox is built from, found beforehand (see `layout.ts`). */
export interface SandboxLayout {
  bwrap: string;
  /** The system's perl, which runs the launcher inside. */
  perl: string;
  /** ralph's launcher (`launcher.pl`): the proxy's bridge, and the agent's start. */
  launcher: string;
  system: SystemEntry[];
  /** An empty directory inside, but for what is bound under it. */
  home: string;
  workDir: string;
  /** `ro`: what runs inside reads the work (a reviewer) and changes none of it. */
  workDirMode: 'rw' | 'ro';
  mounts: Mount[];
  /** `open`: the machine's network; `closed`: loopback alone, and the proxy when given. */
  network: 'open' | 'closed';
  proxy?: { socket: string; port: number; forwards: { host: string; port: number }[] };
}

const depth = (p: string) => p.split('/').filter((part) => part !== '').length;

/**
 * The command that runs `inner` in a bubblewrap sandbox: new user, PID, IPC, UTS and cgroup
 * namespaces and (unless open) network; no capabilities and no new privileges; gone with its
 * parent; the system read-only, a private `/tmp`, `$HOME` empty but for what is bound there, the
 * work dir read-write. SIGINT and SIGTERM are ignored by bubblewrap itself (`env
 * --ignore-signal`): a stop sent to the process group reaches the agent, which ralph's launcher
 * starts with the default handling, and bubblewrap waits for it to end.
 */
export function sandboxArgv<T extends Command>(inner: T, layout: SandboxLayout): T {
  const args = [
    '--ignore-signal=INT',
    '--ignore-signal=TERM',
    layout.bwrap,
    '--unshare-all',
    ...(layout.network === 'open' ? ['--share-net'] : []),
    '--die-with-parent',
    '--cap-drop',
    'ALL',
  ];
  for (const entry of layout.system)
    args.push(
      ...(entry.symlink === undefined
        ? ['--ro-bind', entry.path, entry.path]
        : ['--symlink', entry.symlink, entry.path]),
    );
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', layout.home);
  const mounts = [{ path: layout.workDir, mode: layout.workDirMode }, ...layout.mounts];
  // Deeper paths after shallower ones, so that a read-only file inside a writable dir stays so.
  const ordered = mounts
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.path) - depth(b.mount.path) || a.index - b.index);
  for (const { mount } of ordered) args.push(...mountArgs(mount));
  // A hidden directory is read-only too once what is given inside it is bound there.
  for (const { mount } of ordered)
    if (mount.mode === 'hidden') args.push('--remount-ro', mount.path);
  const launcherArgs: string[] = [];
  if (layout.proxy !== undefined) {
    args.push('--bind', layout.proxy.socket, PROXY_SOCKET_INSIDE);
    launcherArgs.push('--socket', PROXY_SOCKET_INSIDE, '--port', String(layout.proxy.port));
    for (const { host, port } of layout.proxy.forwards)
      launcherArgs.push('--forward', `${host}:${port}`);
  }
  args.push(
    '--ro-bind',
    layout.launcher,
    layout.launcher,
    '--chdir',
    layout.workDir,
    '--',
    layout.perl,
    layout.launcher,
    ...launcherArgs,
    '--',
    inner.file,
    ...inner.args,
  );
  return { ...inner, file: '/usr/bin/env', args };
}

/** The variables that send a sandboxed process's HTTP clients to the launcher's proxy port. */
export function proxyVariables(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTPS_PROXY: url,
    HTTP_PROXY: url,
    https_proxy: url,
    http_proxy: url,
    // Allowed loopback endpoints are forwarded where they are; nothing else is reachable.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}
