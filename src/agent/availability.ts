import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentCli } from './clis/cli.js';

/** Where a command name resolves on PATH, like the shell would (without running a shell). */
export function which(command: string, envPath: string | undefined): string | undefined {
  const isExecutable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return isExecutable(command) ? path.resolve(command) : undefined;
  for (const dir of (envPath ?? '').split(':')) {
    if (dir !== '' && isExecutable(path.join(dir, command))) return path.join(dir, command);
  }
  return undefined;
}

/** How a CLI would log in: a variable of its credentials, or the login file it keeps. */
export type Credentials =
  | { kind: 'variable'; name: string }
  | { kind: 'login'; file: string }
  | { kind: 'none'; problem: string };

/**
 * Whether a CLI has credentials to start with: a variable it reads, or its login file under
 * HOME. A login kept elsewhere (a keychain) is not seen: this is a warning, never a refusal.
 */
export function credentialsOf(
  cli: AgentCli,
  env: Readonly<Record<string, string | undefined>>,
): Credentials {
  const variable = cli.credentials.find((name) => (env[name] ?? '') !== '');
  if (variable !== undefined) return { kind: 'variable', name: variable };
  const login = path.join(env.HOME ?? os.homedir(), cli.login.file);
  if (fs.existsSync(login)) return { kind: 'login', file: login };
  return {
    kind: 'none',
    problem: `${cli.name}: no credentials: set ${cli.credentials.join(' or ')}, or ${cli.login.how}`,
  };
}
