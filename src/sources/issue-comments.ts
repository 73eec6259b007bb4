import type { Forge } from '../forge/forge.js';
import { openIssues } from '../forge/open.js';
import type { ForgeConfig, ForgeKind } from '../forge/config-schema.js';

/** An issue on a forge (GitHub when unsaid). */
interface IssueRef {
  forge?: ForgeKind;
  repo: string;
  number: number;
}

/**
 * Comments on imported issues through the forge's issues port: each repository's forge opened
 * once, on its first comment (a failed opening is tried again on the next).
 */
export function issueCommenter(
  settings: ForgeConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): (issue: IssueRef, text: string, mark: string) => Promise<void> {
  const forges = new Map<string, Promise<Forge>>();
  const forgeOf = (kind: ForgeKind, repo: string) => {
    const key = `${kind}:${repo}`;
    let forge = forges.get(key);
    if (forge === undefined) {
      forge = openIssues(settings, kind, repo, env);
      forges.set(key, forge);
      forge.catch(() => forges.delete(key));
    }
    return forge;
  };
  return async (issue, text, mark) =>
    (await forgeOf(issue.forge ?? 'github', issue.repo)).commentOnIssue(issue.number, text, mark);
}
