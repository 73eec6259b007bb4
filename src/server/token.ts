import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { RalphError } from '../lib/errors.js';
import { PRIVATE_FILE_MODE, readIfExists, writeFileAtomically } from '../lib/fs.js';

/** Shortest token accepted from `--token`: guessing it must be out of reach. */
export const MIN_TOKEN_LENGTH = 24;

/** The token file of a workspace. */
export function tokenFile(stateDir: string): string {
  return path.join(stateDir, 'serve-token');
}

/**
 * The server's bearer token: `state/serve-token`, made at the first start (0600). A file others
 * could read is refused rather than trusted: anyone holding the token can start agents.
 */
export async function loadToken(stateDir: string): Promise<string> {
  const file = tokenFile(stateDir);
  const text = await readIfExists(file);
  if (text === undefined) {
    const token = randomBytes(32).toString('base64url');
    await writeFileAtomically(file, `${token}\n`);
    return token;
  }
  const { mode } = await fsp.stat(file);
  if ((mode & 0o777) !== PRIVATE_FILE_MODE)
    throw new RalphError(
      `${file} is readable by others (mode ${(mode & 0o777).toString(8)}): remove it and start again for a new token, or chmod 600 it`,
    );
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH)
    throw new RalphError(`${file}: the token is shorter than ${MIN_TOKEN_LENGTH} characters`);
  return token;
}

/** Compares a presented token with the server's in constant time. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/**
 * The cookie's name, different for each token: cookies are not kept apart by port, so two
 * servers on one host must not overwrite each other's.
 */
export function cookieName(token: string): string {
  return `ralph_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}
