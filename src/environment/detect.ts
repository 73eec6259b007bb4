import fsp from 'node:fs/promises';
import path from 'node:path';

/** A dependency tree as `environment.dependencies` is written. */
export interface FoundTree {
  lockfiles: string[];
  paths: string[];
  install: string[][];
}

/** The lockfiles ralph knows, the tree each decides and the command that builds it exactly. */
const KNOWN: readonly FoundTree[] = [
  { lockfiles: ['package-lock.json'], paths: ['node_modules'], install: [['npm', 'ci']] },
  {
    lockfiles: ['pnpm-lock.yaml'],
    paths: ['node_modules'],
    install: [['pnpm', 'install', '--frozen-lockfile']],
  },
  {
    lockfiles: ['yarn.lock'],
    paths: ['node_modules'],
    install: [['yarn', 'install', '--frozen-lockfile']],
  },
  { lockfiles: ['uv.lock'], paths: ['.venv'], install: [['uv', 'sync', '--frozen']] },
];

/**
 * The dependency trees a project's lockfiles say it has: one per tree path (a project with a
 * package-lock.json and a stray yarn.lock builds its node_modules once, by the first).
 */
export async function dependenciesOf(project: string): Promise<FoundTree[]> {
  const found: FoundTree[] = [];
  for (const tree of KNOWN) {
    if (found.some((f) => f.paths.some((p) => tree.paths.includes(p)))) continue;
    const there = await fsp.stat(path.join(project, tree.lockfiles[0] ?? '')).then(
      (stat) => stat.isFile(),
      () => false,
    );
    if (there) found.push(tree);
  }
  return found;
}
