import fsp from 'node:fs/promises';
import path from 'node:path';

/** A dependency tree as `environment.dependencies` is written. */
export interface FoundTree {
  lockfiles: string[];
  paths: string[];
  install: string[][];
}

/** A package manager ralph knows: its lockfile's tree, and the registry its install reaches. */
interface Known {
  tree: FoundTree;
  /** The hosts its install needs under the sandbox (`environment.allowHosts`). */
  hosts: string[];
}

const NPM_REGISTRY = ['registry.npmjs.org:443'];

/** The lockfiles ralph knows, the tree each decides and the command that builds it exactly. */
const KNOWN: readonly Known[] = [
  {
    tree: { lockfiles: ['package-lock.json'], paths: ['node_modules'], install: [['npm', 'ci']] },
    hosts: NPM_REGISTRY,
  },
  {
    tree: {
      lockfiles: ['pnpm-lock.yaml'],
      paths: ['node_modules'],
      install: [['pnpm', 'install', '--frozen-lockfile']],
    },
    hosts: NPM_REGISTRY,
  },
  {
    tree: {
      lockfiles: ['yarn.lock'],
      paths: ['node_modules'],
      install: [['yarn', 'install', '--frozen-lockfile']],
    },
    hosts: ['registry.yarnpkg.com:443', ...NPM_REGISTRY],
  },
  {
    tree: { lockfiles: ['uv.lock'], paths: ['.venv'], install: [['uv', 'sync', '--frozen']] },
    hosts: ['pypi.org:443', 'files.pythonhosted.org:443'],
  },
];

/**
 * The dependency trees a project's lockfiles say it has (one per tree path: a project with a
 * package-lock.json and a stray yarn.lock builds its node_modules once, by the first), and the
 * registries their installs reach.
 */
export async function dependenciesOf(
  project: string,
): Promise<{ dependencies: FoundTree[]; allowHosts: string[] }> {
  const found: Known[] = [];
  for (const known of KNOWN) {
    const { tree } = known;
    if (found.some((f) => f.tree.paths.some((p) => tree.paths.includes(p)))) continue;
    const there = await fsp.stat(path.join(project, tree.lockfiles[0] ?? '')).then(
      (stat) => stat.isFile(),
      () => false,
    );
    if (there) found.push(known);
  }
  return {
    dependencies: found.map((known) => known.tree),
    allowHosts: [...new Set(found.flatMap((known) => known.hosts))],
  };
}
