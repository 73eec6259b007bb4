import { landSettingsOf } from '../land/settings.js';
import type { Workspace } from '../config/workspace.js';
import { identityEnv, repositoryRoot } from '../git/worktree.js';
import { FileCache } from '../lib/file-cache.js';
import { trialLandings, type TrialItem, type TrialResult } from '../land/trial.js';
import type { Item } from '../queue/item.js';
import { resolveSession } from './prepare.js';

/**
 * What `ralph land --dry-run` finds: each item's branch merged, in landing order, onto where
 * its target is now, in a worktree of its own that is thrown away (the land gates are not run).
 */
export async function trialLand(
  workspace: Workspace,
  items: readonly Item[],
): Promise<TrialResult[]> {
  const cache = new FileCache();
  const groups = new Map<string, { repo: string; target: string; items: TrialItem[] }>();
  const results: TrialResult[] = [];
  for (const item of items) {
    const resolved = await resolveSession({ workspace, item, cache });
    if ('reason' in resolved) {
      results.push({ id: item.id, kind: 'error', error: resolved.reason });
      continue;
    }
    const land = landSettingsOf(workspace.config, resolved.layers);
    const repo = await repositoryRoot(resolved.settings.workDir);
    if (repo === undefined || item.branch === undefined) {
      results.push({ id: item.id, kind: 'error', error: 'it has no branch in a repository' });
      continue;
    }
    const key = `${repo}\n${land.target}`;
    const group = groups.get(key) ?? { repo, target: land.target, items: [] };
    group.items.push({
      id: item.id,
      branch: item.branch,
      session: item.sessions.at(-1) ?? item.id,
      method: land.method,
      message: `ralph: land ${item.title} (${item.id})`,
    });
    groups.set(key, group);
  }
  for (const { repo, target, items: lined } of groups.values())
    results.push(...(await trialLandings(repo, target, lined, await identityEnv(repo))));
  return results;
}
