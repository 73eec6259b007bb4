import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentCli } from './clis/cli.js';

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
