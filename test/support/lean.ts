import { expect } from 'vitest';
import { ralph, readQueue } from './workspace.js';

/**
 * Two items of the same kind, `full` ("Full item", `--no-lean`) and `lean` ("Lean item",
 * `--lean`), both working in `workDir`, run to the end: both must be done.
 */
export async function runFullAndLean(
  root: string,
  env: Record<string, string>,
  workDir: string,
): Promise<void> {
  for (const [title, id, lean] of [
    ['Full item', 'full', '--no-lean'],
    ['Lean item', 'lean', '--lean'],
  ] as const)
    expect(
      (await ralph(root, ['add', title, '--id', id, lean, '--work-dir', workDir], env)).code,
    ).toBe(0);
  const run = await ralph(root, ['run', '--drain'], env);
  expect(run.code, run.stderr).toBe(0);
  expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
    ['full', 'done'],
    ['lean', 'done'],
  ]);
}
