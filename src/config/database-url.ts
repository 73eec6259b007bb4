import type { Config } from './schema.js';

/** The queue's database: a secret no agent ever gets, whatever the allowlist says. */
export const QUEUE_DATABASE_VARIABLE = 'RALPH_DATABASE_URL';

/** The queue's database URL: `RALPH_DATABASE_URL`, else `queue.url`; undefined for a file queue. */
export function databaseUrl(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (config.queue.backend !== 'postgres') return undefined;
  const fromEnv = env[QUEUE_DATABASE_VARIABLE];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : config.queue.url;
}

/** The secrets a database URL holds: itself and its password (as written and decoded). */
export function databaseSecrets(url: string | undefined): string[] {
  if (url === undefined) return [];
  const secrets = [url];
  try {
    const { password } = new URL(url);
    if (password !== '') secrets.push(password, decodeURIComponent(password));
  } catch {
    // Not a URL: the whole text stays masked.
  }
  return secrets;
}

/** The URL without its password, for messages. */
export function displayedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(the database URL)';
  }
}
