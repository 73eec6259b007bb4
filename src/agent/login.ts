import os from 'node:os';
import { runCommand } from '../lib/command.js';
import { credentialsOf } from './availability.js';
import type { AgentCli } from './clis/cli.js';

/** How long the check may take: a status command or one request. */
const CHECK_TIMEOUT_MS = 20_000;

/**
 * Whether a CLI can log in: a problem (`sure` when it surely cannot, else a warning it may
 * not), or its own word that it can (`confirmed`: its status command said it is logged in).
 */
export type LoginProblem = { sure: boolean; problem: string };
export type LoginAnswer = LoginProblem | { confirmed: string };

/**
 * Whether `cli` (run as `command`, with `env` as its sessions get it) can log in, found without a
 * token spent: an API key it would use is shown to its API (a list of models, which costs
 * nothing), else its own status command is asked; with neither, whether a credential can be
 * read. Only an answer that says so is sure; a check that could not run is not.
 */
export async function loginProblem(
  cli: AgentCli,
  command: readonly string[],
  env: Readonly<Record<string, string>>,
  now: number,
): Promise<LoginAnswer | undefined> {
  const credentials = credentialsOf(cli, env);
  const check = cli.loginCheck;
  const probe = check?.keyProbe?.(env);
  if (probe !== undefined) return keyProblem(cli, probe);
  if (credentials.kind === 'variable') return undefined;
  if (check?.status !== undefined && command.length > 0) {
    const ran = await runCommand({
      argv: [...command, ...check.status.args],
      cwd: os.homedir(),
      env,
      timeoutMs: CHECK_TIMEOUT_MS,
      killGraceMs: 2_000,
      maxOutputBytes: 256 * 1024,
    });
    if (ran.startError !== undefined || ran.timedOut) return undefined;
    const problem = check.status.verdict({ code: ran.code, stdout: ran.stdout }, now);
    if (problem !== undefined) return { sure: true, problem };
    // Its own word that it is logged in, where it gives one.
    return check.status.loggedIn?.({ code: ran.code, stdout: ran.stdout }) === true
      ? { confirmed: `${cli.name} ${check.status.args.join(' ')}: logged in` }
      : undefined;
  }
  return credentials.kind === 'none' ? { sure: false, problem: credentials.problem } : undefined;
}

/** The key shown to the API: refused (401, 403, an invalid key's 400) is sure; else nothing. */
async function keyProblem(
  cli: AgentCli,
  probe: { url: string; headers: Record<string, string> },
): Promise<LoginProblem | undefined> {
  try {
    const response = await fetch(probe.url, {
      headers: probe.headers,
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    const text = await response.text().catch(() => '');
    // Google's API answers a bad key with 400 and API_KEY_INVALID; the others with 401 or 403.
    const refused =
      response.status === 401 ||
      response.status === 403 ||
      (response.status === 400 && /API_KEY_INVALID|API key not valid/.test(text));
    if (!refused) return undefined;
    return {
      sure: true,
      problem: `${cli.name}: its API refused the key (HTTP ${response.status}${apiMessage(text)}) at ${new URL(probe.url).origin}`,
    };
  } catch {
    // Unreachable now (offline, a proxy): the night finds out at its first session.
    return undefined;
  }
}

/** The error message of an API's JSON error body, if it has one. */
function apiMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string };
    const message = typeof body.error === 'string' ? body.error : body.error?.message;
    return typeof message === 'string' && message !== '' ? `: ${message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
