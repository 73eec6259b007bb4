import { remoteUrl } from '../git/worktree.js';
import { FORGE_DEFAULTS, type ForgeConfig, type ForgeKind } from './config-schema.js';
import { ForgeError, type Forge } from './forge.js';
import { projectOfRemote, repositoryOfRemote } from './remote.js';

/** What a forge is opened with: the workspace's `forge` settings and the token they name. */
export interface ForgeAccess {
  kind: ForgeKind;
  apiUrl: string;
  /** `owner/name` (a GitLab project's path), or undefined to read it from the remote's URL. */
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

/** What a token needs, said when there is none. */
function tokenNeeds(access: ForgeAccess): string {
  if (access.kind === 'gitlab')
    return access.purpose === 'issues'
      ? 'read its issues (a personal, project or group access token with the "read_api" scope, or "api" for the write-back to them; the Reporter role)'
      : 'push to it and open merge requests (a personal, project or group access token with the "api" scope and the Developer role)';
  return access.purpose === 'issues'
    ? 'read its issues (a fine-grained token with "Issues: read", or "Issues: read and write" for the write-back to them; a classic one with "repo", or "public_repo" for a public repository)'
    : 'push to it and open pull requests (a fine-grained token with "Contents: read and write", "Pull requests: read and write" and "Commit statuses: read"; a classic one with "repo")';
}

/** The repository the access names, or the one its remote's URL names. */
function repositoryOf(access: ForgeAccess): string | undefined {
  if (access.repo !== undefined) return access.repo;
  if (access.remoteUrl === undefined) return undefined;
  return access.kind === 'gitlab'
    ? projectOfRemote(access.remoteUrl, access.apiUrl)
    : repositoryOfRemote(access.remoteUrl);
}

/**
 * The forge of a repository. Its client is loaded only here, when a night has pull requests to
 * tend or issues to tell: a `ralph status` never pays for it.
 */
export async function openForge(access: ForgeAccess): Promise<Forge> {
  if (access.token === undefined || access.token === '')
    throw new ForgeError(
      'auth',
      `no token in ${access.tokenEnv} (forge.tokenEnv): set it to a token for the repository that can ${tokenNeeds(access)}`,
    );
  const repo = repositoryOf(access);
  if (repo === undefined)
    throw new ForgeError(
      'not_found',
      `the remote ${access.remote} (forge.remote) names no ${access.kind === 'gitlab' ? 'GitLab project' : 'GitHub repository'}: set forge.repo to ${access.kind === 'gitlab' ? '"group/name"' : '"owner/name"'}`,
    );
  if (access.kind === 'gitlab') {
    const { gitLabForge } = await import('./gitlab.js');
    return gitLabForge({
      apiUrl: access.apiUrl,
      project: repo,
      remote: access.remote,
      token: access.token,
      tokenEnv: access.tokenEnv,
    });
  }
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

/**
 * The issues of `repo` (`owner/name`, a GitLab project's path) on a forge of `kind`, read and
 * commented on with the workspace's `forge` settings and token when they are of that forge, else
 * its defaults.
 */
export function openIssues(
  settings: ForgeConfig | undefined,
  kind: ForgeKind,
  repo: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Forge> {
  const own = settings?.kind === kind ? settings : undefined;
  const tokenEnv = own?.tokenEnv ?? FORGE_DEFAULTS[kind].tokenEnv;
  return openForge({
    kind,
    purpose: 'issues',
    apiUrl: own?.apiUrl ?? FORGE_DEFAULTS[kind].apiUrl,
    repo,
    remote: own?.remote ?? 'origin',
    tokenEnv,
    token: env[tokenEnv],
    writeInterval: own?.writeInterval ?? 1,
  });
}
