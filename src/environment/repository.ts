import fsp from 'node:fs/promises';
import path from 'node:path';
import { git, gitSucceeds } from '../git/git.js';
import { formatIssues } from '../lib/validation.js';
import type * as z from '../lib/zod.js';
import { EnvironmentSchema, type EnvironmentConfig } from './config-schema.js';

/** Where a repository says how its worktrees are made ready, committed beside its code. */
export const REPOSITORY_ENVIRONMENT = '.ralph/environment.json';

/**
 * What a repository may say of its environment: everything but `secrets`, which only the
 * workspace names (a repository's commit must never choose what leaves the runner's machine).
 */
const RepositoryEnvironmentSchema = EnvironmentSchema.omit({ secrets: true }).partial();

/**
 * The environment the workspace gives, completed by the repository's own
 * `.ralph/environment.json` as committed at its HEAD (never a worktree's copy, which an agent
 * may have changed): each list the workspace leaves empty is the repository's, and the ports
 * and `worktreeInclude` stay the workspace's. Throws, naming the file and field, on a bad file.
 */
export async function withRepositoryEnvironment(
  environment: EnvironmentConfig,
  repo: string,
): Promise<EnvironmentConfig> {
  const own = await repositoryEnvironment(repo);
  if (own === undefined) return environment;
  const either = <T>(mine: T[], theirs: T[] | undefined): T[] =>
    mine.length > 0 ? mine : (theirs ?? []);
  return {
    ...environment,
    setup: either(environment.setup, own.setup),
    maintenance: either(environment.maintenance, own.maintenance),
    dependencies: either(environment.dependencies, own.dependencies),
    services: either(environment.services, own.services),
    allowHosts: either(environment.allowHosts, own.allowHosts),
  };
}

type RepositoryEnvironment = z.output<typeof RepositoryEnvironmentSchema>;

/**
 * The repository's own environment file as committed at its HEAD, read once for each commit
 * HEAD is at (a landing asks for it before each merge's gates: its every git call counts).
 */
const readAtHead = new Map<
  string,
  { head: string; reading: Promise<RepositoryEnvironment | undefined> }
>();

async function repositoryEnvironment(repo: string): Promise<RepositoryEnvironment | undefined> {
  const head = await headCommit(repo);
  if (head === undefined) return readEnvironment(repo);
  const known = readAtHead.get(repo);
  if (known?.head === head) return known.reading;
  const reading = readEnvironment(repo);
  readAtHead.set(repo, { head, reading });
  // A file that could not be read is read again next time, not remembered.
  reading.catch(() => {
    if (readAtHead.get(repo)?.reading === reading) readAtHead.delete(repo);
  });
  return reading;
}

async function readEnvironment(repo: string): Promise<RepositoryEnvironment | undefined> {
  const spec = `HEAD:${REPOSITORY_ENVIRONMENT}`;
  if (!(await gitSucceeds(repo, ['cat-file', '-e', spec]))) return undefined;
  const source = `${path.join(repo, REPOSITORY_ENVIRONMENT)} (as committed at HEAD)`;
  let raw: unknown;
  try {
    raw = JSON.parse(await git(repo, ['show', spec]));
  } catch (error) {
    throw new Error(
      `${source} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = RepositoryEnvironmentSchema.safeParse(raw);
  if (!parsed.success) throw new Error(formatIssues(source, parsed.error));
  return parsed.data;
}

/**
 * The commit the repository's HEAD is at, from its files alone (its HEAD, the loose ref it
 * names); undefined where they do not say (a packed ref, a worktree's git file): then asked anew.
 */
async function headCommit(repo: string): Promise<string | undefined> {
  const read = (file: string) =>
    fsp.readFile(path.join(repo, '.git', file), 'utf8').then(
      (text) => text.trim(),
      () => '',
    );
  const head = await read('HEAD');
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
  const commit = ref === undefined ? head : await read(ref);
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit) ? commit : undefined;
}
