import type { PullRequestRecord } from './item.js';

/**
 * A pull request as people name it: `pull request #4` on GitHub, `merge request !4` on GitLab
 * (`short`: `PR #4`, `MR !4`; `number`: `#4`, `!4`).
 */
export function pullRequestName(
  pr: Pick<PullRequestRecord, 'number' | 'forge'> | undefined,
  form: 'long' | 'short' | 'number' = 'long',
): string {
  const gitlab = pr?.forge === 'gitlab';
  const number = `${gitlab ? '!' : '#'}${pr?.number ?? '?'}`;
  if (form === 'number') return number;
  if (form === 'short') return `${gitlab ? 'MR' : 'PR'} ${number}`;
  return `${gitlab ? 'merge request' : 'pull request'} ${number}`;
}
