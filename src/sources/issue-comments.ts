import type { Forge } from '../forge/forge.js';
import { openIssues } from '../forge/open.js';
import type { ForgeConfig } from '../forge/config-schema.js';

/**
 * Comments on imported issues through the forge's issues port: each repository's forge opened
 * once, on its first comment (a failed opening is tried again on the next).
 */
export function issueCommenter(
  settings: ForgeConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): (repo: string, number: number, text: string) => Promise<void> {
  const forges = new Map<string, Promise<Forge>>();
  const forgeOf = (repo: string) => {
    let forge = forges.get(repo);
    if (forge === undefined) {
      forge = openIssues(settings, repo, env);
      forges.set(repo, forge);
      forge.catch(() => forges.delete(repo));
    }
    return forge;
  };
  return async (repo, number, text) => (await forgeOf(repo)).comment(number, text);
}
