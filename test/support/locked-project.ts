export { lockedDependencies, writeLockedProject } from '../../scripts/locked-project.mjs';
