import path from 'node:path';
import { git, gitSucceeds } from '../git/git.js';
import { formatIssues } from '../lib/validation.js';
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
  const spec = `HEAD:${REPOSITORY_ENVIRONMENT}`;
  if (!(await gitSucceeds(repo, ['cat-file', '-e', spec]))) return environment;
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
  const own = parsed.data;
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
