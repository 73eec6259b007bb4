/** The lockfile entries the named packages need, and the dependencies that ask for them. */
export function lockedDependencies(names: readonly string[]): {
  dependencies: Record<string, string>;
  entries: Record<string, Record<string, unknown>>;
};

/**
 * Writes a project's package.json and package-lock.json into `dir`, depending on the named
 * packages at the versions ralph's lockfile holds; the number of packages it locks.
 */
export function writeLockedProject(
  dir: string,
  project: { name?: string; dependencies: readonly string[]; scripts?: Record<string, string> },
): number;
