// A Node project with real registry dependencies and a lockfile, made offline: its lockfile is
// the part of ralph's own package-lock.json its dependencies need, so `npm ci --offline`
// installs it from the npm cache that installing ralph filled.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RALPH_LOCK = fileURLToPath(new URL('../package-lock.json', import.meta.url));

/** Where a package at `from` (a lockfile path) finds `name`: Node's lookup, up the tree. */
function resolve(packages, from, name) {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at === -1 ? '' : dir.slice(0, at);
  }
}

/**
 * The lockfile entries the named packages need (each as ralph's lockfile has it, at the same
 * place in the tree), with the package.json that asks for them.
 */
export function lockedDependencies(names) {
  const lock = JSON.parse(fs.readFileSync(RALPH_LOCK, 'utf8'));
  const { packages } = lock;
  const picked = new Map();
  const visit = (from, name, optional) => {
    const at = resolve(packages, from, name);
    if (at === undefined) {
      if (optional) return;
      throw new Error(`${RALPH_LOCK}: no ${name} for ${from || 'the project'}`);
    }
    if (picked.has(at)) return;
    const entry = packages[at];
    const { dev: _dev, devOptional: _devOptional, ...kept } = entry;
    // ralph's lockfile may omit where a package downloads from (npm's
    // omit-lockfile-registry-resolved); this one names it, so the npm cache's copy is found
    // without asking the registry what it holds.
    const base = name.split('/').at(-1);
    picked.set(at, {
      resolved: `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`,
      ...kept,
    });
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(at, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(at, dep, true);
    for (const dep of Object.keys(entry.peerDependencies ?? {}))
      visit(at, dep, entry.peerDependenciesMeta?.[dep]?.optional === true);
  };
  const dependencies = {};
  for (const name of names) {
    const entry = packages[`node_modules/${name}`];
    if (entry === undefined) throw new Error(`${RALPH_LOCK}: no ${name}`);
    dependencies[name] = entry.version;
    visit('', name, false);
  }
  return {
    dependencies,
    entries: Object.fromEntries([...picked].sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * Writes a project's package.json and package-lock.json into `dir` (with its own `scripts`),
 * depending on the named packages at the versions ralph's lockfile holds.
 */
export function writeLockedProject(dir, { name = 'project', dependencies: names, scripts = {} }) {
  const { dependencies, entries } = lockedDependencies(names);
  const manifest = { name, version: '1.0.0', private: true, scripts, dependencies };
  const lock = {
    name,
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name, version: '1.0.0', dependencies }, ...entries },
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  return Object.keys(entries).length;
}
