import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from './fs.js';
import { VERSION } from './version.js';

/** The sha1 of a text, in hex. */
export function digest(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Where the digest of a state file as ralph last wrote it is kept: `.<name>.sha1` beside it. */
export function digestFileOf(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.sha1`);
}

/**
 * The digest of a state file's text as this release wrote it: another release (which may read
 * the file's schema differently) never takes it as validated.
 */
function stateDigest(text: string): string {
  return digest(`${VERSION}\0${text}`);
}

/**
 * Records that ralph itself wrote (and so had validated) `text` to `file`, so that a later read
 * can skip validating it again. Only an optimisation: a digest that cannot be written is
 * removed, never left stale. It is not flushed to disk: after a machine crash it matches a text
 * ralph wrote or none, and then the file is validated.
 */
export async function recordDigest(file: string, text: string): Promise<void> {
  const digestFile = digestFileOf(file);
  await writeFileAtomically(digestFile, stateDigest(text), { durable: false }).catch(() =>
    fsp.rm(digestFile, { force: true }).catch(() => undefined),
  );
}

/** Whether `text` is what ralph last wrote to `file`: anything else must be validated. */
export async function wroteItself(file: string, text: string): Promise<boolean> {
  const written = await fsp.readFile(digestFileOf(file), 'utf8').catch(() => undefined);
  return written !== undefined && written === stateDigest(text);
}
