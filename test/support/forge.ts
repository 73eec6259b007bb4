import { brokenFileCi, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { makeRepoWithRemote } from './git.js';
import { FAKE_CLAUDE, makeWorkspace } from './workspace.js';

/**
 * A repository with `main` and its bare remote `origin`, the fake GitHub in front of it (its CI
 * failing a commit with a `broken-*` file), and a workspace of git mode whose forge it is; the
 * caller closes `github`.
 */
export async function forgeWorkspace(
  forge: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
): Promise<{ repo: string; bare: string; root: string; github: FakeGitHub }> {
  const { repo, bare } = await makeRepoWithRemote();
  const github = await startFakeGitHub({ bare });
  github.checksFor = brokenFileCi(bare);
  const root = await makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    defaults: { workDir: repo },
    git: { enabled: true },
    forge: {
      kind: 'github',
      apiUrl: github.url,
      repo: 'acme/app',
      checks: { poll: 0.05 },
      writeInterval: 0.01,
      ...forge,
    },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    ...config,
  });
  return { repo, bare, root, github };
}
