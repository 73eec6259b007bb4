import { remoteUrl } from '../git/worktree.js';
import type { ForgeConfig } from './config-schema.js';
import { ForgeError, type Forge } from './forge.js';
import { repositoryOfRemote } from './remote.js';

/** What a forge is opened with: the workspace's `forge` settings and the token they name. */
export interface ForgeAccess {
  kind: 'github';
  apiUrl: string;
  /** `owner/name`, or undefined to read it from the remote's URL. */
  repo?: string;
  remote: string;
  tokenEnv: string;
  /** The token's value, from the variable `tokenEnv` names. */
  token: string | undefined;
  /** The remote's URL, when `repo` is to be read from it. */
  remoteUrl?: string;
  /** The least time between two writes, in seconds. */
  writeInterval: number;
  /** What it is opened for: pull requests (the default), or reading issues (import). */
  purpose?: 'pull_requests' | 'issues';
}

/**
 * The forge of a repository. The GitHub client is loaded only here, when a night has pull
 * requests to tend: a `ralph status` never pays for it.
 */
export async function openForge(access: ForgeAccess): Promise<Forge> {
  if (access.token === undefined || access.token === '')
    throw new ForgeError(
      'auth',
      `no token in ${access.tokenEnv} (forge.tokenEnv): set it to a token for the repository that can ${access.purpose === 'issues' ? 'read its issues (a fine-grained token with "Issues: read", or "Issues: read and write" for the write-back to them; a classic one with "repo", or "public_repo" for a public repository)' : 'push to it and open pull requests (a fine-grained token with "Contents: read and write", "Pull requests: read and write" and "Commit statuses: read"; a classic one with "repo")'}`,
    );
  const repo =
    access.repo ??
    (access.remoteUrl === undefined ? undefined : repositoryOfRemote(access.remoteUrl));
  if (repo === undefined)
    throw new ForgeError(
      'not_found',
      `the remote ${access.remote} (forge.remote) names no GitHub repository: set forge.repo to "owner/name"`,
    );
  const { gitHubForge } = await import('./github.js');
  return gitHubForge({
    apiUrl: access.apiUrl,
    repo,
    remote: access.remote,
    token: access.token,
    tokenEnv: access.tokenEnv,
    writeIntervalMs: access.writeInterval * 1000,
  });
}

/**
 * The forge of a local repository, with the workspace's `forge` settings and the token from the
 * runner's environment: its repository is `forge.repo`, or read from the remote's URL.
 */
export async function forgeOfRepository(
  forge: ForgeConfig,
  repo: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Forge> {
  return openForge({
    ...forge,
    token: env[forge.tokenEnv],
    remoteUrl:
      forge.repo === undefined
        ? await remoteUrl(repo, forge.remote).catch(() => {
            throw new ForgeError(
              'not_found',
              `the repository ${repo} has no remote ${forge.remote} (forge.remote)`,
            );
          })
        : undefined,
  });
}

/** GitHub's API and the variable of its token when the workspace sets no `forge`. */
const GITHUB_DEFAULTS = { apiUrl: 'https://api.github.com', tokenEnv: 'GITHUB_TOKEN' };

/**
 * The issues of `repo` (`owner/name`), read and commented on with the workspace's `forge`
 * settings and token, or GitHub's defaults when it sets none.
 */
export function openIssues(
  settings: { apiUrl: string; tokenEnv: string; remote: string; writeInterval: number } | undefined,
  repo: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Forge> {
  const tokenEnv = settings?.tokenEnv ?? GITHUB_DEFAULTS.tokenEnv;
  return openForge({
    kind: 'github',
    purpose: 'issues',
    apiUrl: settings?.apiUrl ?? GITHUB_DEFAULTS.apiUrl,
    repo,
    remote: settings?.remote ?? 'origin',
    tokenEnv,
    token: env[tokenEnv],
    writeInterval: settings?.writeInterval ?? 1,
  });
}
