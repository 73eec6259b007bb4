import { afterAll } from 'vitest';
import { removeTempDirs } from './workspace.js';

// Every test file's temporary workspaces go when the file ends: a full stress run writes
// gigabytes of archives, and repeated runs would fill /tmp.
afterAll(removeTempDirs);
