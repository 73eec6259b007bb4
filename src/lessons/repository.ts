import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { git, gitSucceeds } from '../git/git.js';
import { identityEnv, repositoryRoot, resolveCommit } from '../git/worktree.js';
import { RalphError } from '../lib/errors.js';
import { ItemSchema, type Item } from '../queue/item.js';
import type { Rule } from './state.js';

// An accepted rule's home in the repository: the project's own AGENTS.md (or its CLAUDE.md when
// it has only that), changed on a branch of its own by a commit ralph makes without touching
// any worktree, and put in line as an item that lands through the land gates (or goes to a pull
// request) like any item's work.

/** The files a project's agents read, the first found taking the rules. */
const AGENT_FILES = ['AGENTS.md', 'CLAUDE.md'];

const BEGIN =
  '<!-- ralph rules: begin (accepted by a person; `ralph rules rm <id>` retires one) -->';
const END = '<!-- ralph rules: end -->';

/** The file's text with its rules block made to hold `rules` (none: the block is gone). */
export function withRules(text: string, rules: readonly Rule[]): string {
  const block =
    rules.length === 0
      ? ''
      : [
          BEGIN,
          '## Rules',
          '',
          ...rules.map(
            (r) => `- ${r.text}${r.scope.length === 0 ? '' : ` (${r.scope.join(', ')})`} [${r.id}]`,
          ),
          END,
        ].join('\n');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start >= 0 && end > start) {
    const before = text.slice(0, start).replace(/\n+$/, '');
    const after = text
      .slice(end + END.length)
      .replace(/^\n+/, '')
      .replace(/\n+$/, '');
    return [before, block, after].filter((part) => part !== '').join('\n\n') + '\n';
  }
  if (block === '') return text;
  return text.trim() === '' ? `${block}\n` : `${text.replace(/\n+$/, '')}\n\n${block}\n`;
}

/** The repository of the workspace's project (its `defaults.workDir`), if it is in one. */
export function projectRepository(workspace: Workspace): Promise<string | undefined> {
  return repositoryRoot(path.resolve(workspace.root, workspace.config.defaults.workDir ?? '.'));
}

/** Where the rules change starts from: the land target's head when it has one, else HEAD. */
async function baseOf(repo: string, workspace: Workspace): Promise<string> {
  const { land, git: gitSettings } = workspace.config;
  const target = `refs/heads/${land.target}`;
  if (land.enabled && (await gitSucceeds(repo, ['show-ref', '--verify', '--quiet', target])))
    return resolveCommit(repo, target);
  return resolveCommit(repo, gitSettings.base ?? 'HEAD');
}

/**
 * Commits the project's agent file holding `rules` (the repository's rules in force after the
 * decision) on a new branch, from the base later items start from; the item that carries it,
 * done, with its branch and the commit recorded as its work (none: the file holds them already).
 */
export async function rulesChange(
  workspace: Workspace,
  rules: readonly Rule[],
  name: { id: string; title: string },
  now: number,
): Promise<{ item: Item; file: string } | undefined> {
  const repo = await projectRepository(workspace);
  if (repo === undefined)
    throw new RalphError(
      `lessons.into is "repository", and the project (defaults.workDir) is in no git repository: the rule cannot be written there`,
    );
  const base = await baseOf(repo, workspace);
  const at = async (file: string) => gitSucceeds(repo, ['cat-file', '-e', `${base}:${file}`]);
  const file = (await at(AGENT_FILES[0]!))
    ? AGENT_FILES[0]!
    : (await at(AGENT_FILES[1]!))
      ? AGENT_FILES[1]!
      : AGENT_FILES[0]!;
  const before = (await at(file)) ? await git(repo, ['show', `${base}:${file}`]) : '';
  const after = withRules(before, rules);
  if (after === before) return undefined;
  const blob = (await git(repo, ['hash-object', '-w', '--stdin'], process.env, after)).trim();
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ralph-rules-'));
  try {
    const env = {
      ...process.env,
      GIT_INDEX_FILE: path.join(dir, 'index'),
      ...(await identityEnv(repo)),
    };
    await git(repo, ['read-tree', base], env);
    await git(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`], env);
    const tree = (await git(repo, ['write-tree'], env)).trim();
    const message = `${name.title}\n\nThe rules a person accepted from ralph's lessons (ralph rules).`;
    const head = (await git(repo, ['commit-tree', tree, '-p', base, '-m', message], env)).trim();
    const branch = `ralph/${name.id}`;
    await git(repo, ['update-ref', `refs/heads/${branch}`, head, '']);
    const iso = new Date(now).toISOString();
    const item: Item = {
      ...ItemSchema.parse({ id: name.id, title: name.title }),
      body: `${file}, changed to hold the rules in force:\n\n${rules.map((r) => `- ${r.id}: ${r.text}`).join('\n')}`,
      status: 'done',
      branch,
      baseCommit: base,
      head,
      // The session its landing's trailer names: the change is ralph's own, made once.
      sessions: [randomUUID()],
      createdAt: iso,
      updatedAt: iso,
      finishedAt: iso,
    };
    return { item, file };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
