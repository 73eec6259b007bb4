import fsp from 'node:fs/promises';
import path from 'node:path';
import { dependenciesOf } from '../../environment/detect.js';
import { ConfigSchema } from '../../config/schema.js';
import { CONFIG_FILE } from '../../config/config-file.js';
import { workspacePaths } from '../../config/workspace.js';
import { shellQuote } from '../../agent/argv.js';
import { recordDigest } from '../../lib/digest.js';
import { queueFileText } from '../../queue/file-schema.js';
import {
  displayPath,
  ensurePrivateDir,
  isWithin,
  makePrivateDirs,
  openExclusive,
} from '../../lib/fs.js';
import { remoteUrl, repositoryRoot } from '../../git/worktree.js';
import { forgeOfRemote } from '../../forge/remote.js';
import { ExitCode } from '../../lib/exit-codes.js';
import {
  BOOTSTRAP_PROMPT,
  CONFIG_JSON_SCHEMA,
  INSTRUCTIONS_PROMPT,
} from '../../lib/package-files.js';
import { bubblewrapOf, probeSandbox } from '../../sandbox/probe.js';
import { InputError, isErrnoException } from '../../lib/errors.js';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Output } from '../output.js';

/** Writes a new file; false when something is already there (it is never overwritten). */
function createFile(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openExclusive(file);
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Where the night works, and why: named with --project, or the repository init ran in. */
interface Project {
  dir: string;
  from: 'flag' | 'here';
}

/**
 * The project a new workspace works on: `--project` (an existing directory), else, when init is
 * given no directory, the git repository `here` is in; none otherwise.
 */
async function projectOf(
  given: string | undefined,
  dir: string | undefined,
  here: string,
): Promise<Project | undefined> {
  if (given !== undefined) {
    const dir = path.resolve(here, given);
    const stat = await fsp.stat(dir).catch(() => undefined);
    if (stat?.isDirectory() !== true)
      throw new InputError(`--project ${given}: ${dir} is not a directory`, '--project');
    return { dir, from: 'flag' };
  }
  if (dir !== undefined) {
    // A workspace given inside a repository, no project named: that repository is the project
    // it would sit in.
    const root = path.resolve(here, dir);
    const repo = await repositoryRoot(await nearestExisting(root));
    if (repo !== undefined) throw insideProject(root, repo);
    return undefined;
  }
  const repo = await repositoryRoot(here);
  return repo === undefined ? undefined : { dir: repo, from: 'here' };
}

/** The directory itself if it exists, else its nearest parent that does. */
async function nearestExisting(dir: string): Promise<string> {
  for (let at = dir; ; at = path.dirname(at)) {
    if ((await fsp.stat(at).catch(() => undefined))?.isDirectory() === true) return at;
    if (path.dirname(at) === at) return at;
  }
}

/**
 * The workspace's directory: `dir` as given, else beside the project when init runs in it
 * (`<project>.ralph`), else here. Never inside the project: its worktrees and state would be in
 * the project's tree, where its test runner and linter find them and its agent reaches them.
 */
function workspaceDir(dir: string | undefined, here: string, project: Project | undefined): string {
  const root =
    dir !== undefined
      ? path.resolve(here, dir)
      : project !== undefined && isWithin(here, project.dir)
        ? `${project.dir}.ralph`
        : here;
  if (project !== undefined && isWithin(root, project.dir)) throw insideProject(root, project.dir);
  return root;
}

/** A workspace refused inside a project, and where to put it instead. */
function insideProject(root: string, project: string): InputError {
  return new InputError(
    `init: the workspace ${root} would be inside the project ${project}, where its test runner and linter would find ralph's worktrees and its agent would reach ralph's state; put it outside: ralph init ${shellQuote([`${project}.ralph`])} --project ${shellQuote([project])}`,
    '--project',
  );
}

/**
 * `ralph init [dir] [--project <repo>]`: lays out a workspace with the defaults spelled out,
 * the project it works on named (\`defaults.workDir\`), its agents in a bubblewrap sandbox when
 * bubblewrap works here.
 */
export async function initCommand(
  dir: string | undefined,
  options: { project?: string; here: string },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const project = await projectOf(options.project, dir, options.here);
  const root = workspaceDir(dir, options.here, project);
  const probe = await probeSandbox(bubblewrapOf(env));
  const found =
    project === undefined
      ? { dependencies: [], allowHosts: [] }
      : await dependenciesOf(project.dir);
  const { dependencies } = found;
  const config = ConfigSchema.parse({
    sandbox: { kind: probe.ok ? 'bwrap' : 'none' },
    ...(project === undefined ? {} : { defaults: { workDir: project.dir } }),
    // Its registry for its installs alone: under the sandbox the agent does not reach it.
    environment: { dependencies, allowHosts: found.allowHosts },
  });
  const paths = workspacePaths(root, config);
  const created: string[] = [];
  const kept: string[] = [];
  await makePrivateDirs(root);
  for (const dir of [paths.state, paths.sessions, path.dirname(paths.bootstrap), paths.agents]) {
    const existed = await fsp.stat(dir).then(
      () => true,
      () => false,
    );
    await ensurePrivateDir(dir);
    (existed ? kept : created).push(`${displayPath(dir, root)}/`);
  }
  // The schema shipped with this ralph, so an editor completes and checks the file.
  const spelledOut = { $schema: pathToFileURL(CONFIG_JSON_SCHEMA).href, ...config };
  const files: [string, string][] = [
    [path.join(root, CONFIG_FILE), `${JSON.stringify(spelledOut, null, 2)}\n`],
    [paths.bootstrap, await fsp.readFile(BOOTSTRAP_PROMPT, 'utf8')],
    [paths.instructions, await fsp.readFile(INSTRUCTIONS_PROMPT, 'utf8')],
    [paths.queue, queueFileText(0, [])],
  ];
  for (const [file, content] of files) {
    const made = createFile(file, content);
    // The empty queue is ralph's own: the next read need not validate it.
    if (made && file === paths.queue) await recordDigest(file, content);
    (made ? created : kept).push(displayPath(file, root));
  }
  output.out(`Workspace ${root}`);
  for (const entry of created) output.out(`  created ${entry}`);
  for (const entry of kept) output.out(`  kept    ${entry} (already there)`);
  output.out(projectLine(project, created.includes(CONFIG_FILE)));
  if (created.includes(CONFIG_FILE))
    for (const tree of dependencies)
      output.out(
        `Dependencies: ${tree.paths.join(', ')} of ${tree.lockfiles.join(', ')}, built once by \`${tree.install.map((c) => c.join(' ')).join('; ')}\` and copied into each worktree (environment.dependencies; its install may reach ${found.allowHosts.join(', ')})`,
      );
  if (created.includes(CONFIG_FILE))
    output.out(
      probe.ok
        ? 'Sandbox: bwrap (bubblewrap works here: each agent and its gates in a sandbox of their own)'
        : `Sandbox: none (${probe.problem})`,
    );
  const forge = project === undefined ? undefined : await forgeLine(project.dir);
  if (forge !== undefined) output.out(forge);
  const away = path.relative(options.here, root);
  const cd = away === '' ? '' : `cd ${shellQuote([away.startsWith('..') ? root : away])} && `;
  output.out(`Next: ${cd}ralph add "<task>" && ralph run --drain`);
  return ExitCode.ok;
}

/**
 * What init says of the project's forge, when its `origin` is on GitHub or GitLab: the settings
 * that open pull requests (merge requests) for the night's work. Not written: pushing branches to a
 * shared remote is the person's choice.
 */
async function forgeLine(project: string): Promise<string | undefined> {
  const url = await remoteUrl(project, 'origin').catch(() => undefined);
  const found = url === undefined ? undefined : forgeOfRemote(url);
  if (found === undefined) return undefined;
  const gitlab = found.kind === 'gitlab';
  const settings = {
    kind: found.kind,
    ...(found.apiUrl === undefined ? {} : { apiUrl: found.apiUrl }),
    repo: found.repo,
  };
  return `Forge: ${gitlab ? 'GitLab' : 'GitHub'} ${found.apiUrl === undefined ? '' : `at ${found.apiUrl} `}(origin is ${found.repo}): for a ${gitlab ? 'merge request' : 'pull request'} of each item's work, with its ${gitlab ? 'pipeline' : 'checks'} in the loop, add "git": {"enabled": true} and "forge": ${JSON.stringify(settings)} to ralph.config.json, and set ${gitlab ? 'GITLAB_TOKEN' : 'GITHUB_TOKEN'} where ralph runs`;
}

/** What init says of the project: named, found, kept as the config had it, or none yet. */
function projectLine(project: Project | undefined, written: boolean): string {
  if (project === undefined)
    return 'Project: none named yet: `ralph add` refuses an item without --work-dir until "defaults.workDir" in ralph.config.json names the repository (or run init with --project <repo>)';
  if (!written)
    return `Project: ${project.dir} not written (ralph.config.json was there already): set "defaults.workDir" to it there`;
  const why = project.from === 'here' ? ' (the git repository init ran in)' : '';
  return `Project: ${project.dir}${why}, the agents' work dir ("defaults.workDir")`;
}
