import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** Whether bubblewrap can make a sandbox on this machine, and if not, why. */
export type SandboxProbe = { ok: true; bwrap: string } | { ok: false; problem: string };

/** bubblewrap's program: `RALPH_BWRAP` names one off the PATH. */
export function bubblewrapOf(env: Readonly<Record<string, string | undefined>>): string {
  return env.RALPH_BWRAP ?? 'bwrap';
}

/**
 * The perl that runs ralph's launcher inside every sandbox: the system's, under the read-only
 * `/usr` (Debian's perl-base is essential; Fedora and Arch put it there too).
 */
export const SANDBOX_PERL = '/usr/bin/perl';

const probed = new Map<string, Promise<SandboxProbe>>();

/**
 * Makes one throw-away sandbox (once a process), running the launcher's perl in it: bubblewrap
 * missing, the kernel refusing it user namespaces, or no perl to start the agent with, is found
 * before any item is started in one.
 */
export function probeSandbox(bwrap: string): Promise<SandboxProbe> {
  const known = probed.get(bwrap);
  if (known !== undefined) return known;
  const probe = new Promise<SandboxProbe>((resolve) => {
    if (!fs.existsSync(SANDBOX_PERL)) {
      resolve({
        ok: false,
        problem: `${SANDBOX_PERL} is missing: the sandbox's launcher runs on the system's perl (Debian and Ubuntu: apt-get install perl-base)`,
      });
      return;
    }
    const child = spawn(
      bwrap,
      [
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--unshare-all',
        '--die-with-parent',
        '--cap-drop',
        'ALL',
        SANDBOX_PERL,
        '-MSocket',
        '-e',
        '0',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], shell: false },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve({
        ok: false,
        problem:
          error.code === 'ENOENT'
            ? 'bubblewrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)'
            : `bubblewrap cannot be started: ${error.message}`,
      }),
    );
    child.once('close', (code) =>
      resolve(
        code === 0
          ? { ok: true, bwrap }
          : {
              ok: false,
              problem: `bubblewrap cannot make a sandbox here (${stderr.trim() || `exit ${code}`}): user namespaces may be turned off (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces, or an AppArmor rule)`,
            },
      ),
    );
  });
  probed.set(bwrap, probe);
  return probe;
}
