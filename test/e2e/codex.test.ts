// End-to-end: ralph drives the real codex CLI (pinned devDependency) against a fake OpenAI
// Responses API on 127.0.0.1, through a model provider of codex's own configuration.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESSES } from '../support/agent-clis.js';
import { RUN, scenarios } from '../support/cli-scenarios.js';
import { ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';

const codex = HARNESSES.find((h) => h.name === 'codex')!;
scenarios(codex);

describe('ralph with the real codex CLI, its sandbox', () => {
  codex.closeAfterEach();

  it('keeps a read-only item from writing: "plan" is codex\'s read-only sandbox', async () => {
    const { root, env, api } = await codex.setup(
      (request) =>
        codex.toolOutput(request) !== undefined
          ? { kind: 'text', text: 'I could not write it.' }
          : { kind: 'shell', command: 'echo written > forbidden.txt' },
      { run: RUN },
    );
    const work = await tempDir('ralph-work-');
    await ralph(
      root,
      ['add', 'Try to write', '--id', 'ro', '--work-dir', work, '--permission-mode', 'plan'],
      env,
    );
    // Refused, its task undone: parked for a person (needs_input), not a failed night.
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(fs.existsSync(path.join(work, 'forbidden.txt'))).toBe(false);
    expect(codex.toolOutput(api.requests[1]!)).toMatch(/read-only file system/i);
    const [record] = readSessions(root);
    expect(record?.command).toEqual(expect.arrayContaining(['sandbox_mode="read-only"']));
    expect(record).toMatchObject({ outcome: { kind: 'permission_denied' } });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'needs_input' });
  });
});

/** A PATH of the same programs as this one's, but without bubblewrap. */
async function pathWithoutBwrap(): Promise<string> {
  const bin = await tempDir('ralph-nobwrap-');
  for (const dir of (process.env.PATH ?? '').split(':').filter((d) => d !== '')) {
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      const link = path.join(bin, name);
      if (name !== 'bwrap' && !fs.existsSync(link)) fs.symlinkSync(path.join(dir, name), link);
    }
  }
  return bin;
}

describe('ralph with the real codex CLI, with and without bubblewrap installed', () => {
  codex.closeAfterEach();

  // codex's bubblewrap sandbox hides its temp dir; a home inside it (as here, under /tmp) used
  // to hide codex's own helper too, and every shell command failed.
  it.each([
    ['with bwrap on the PATH (where installed)', () => Promise.resolve(process.env.PATH ?? '')],
    ['without bwrap on the PATH', pathWithoutBwrap],
  ])('runs a shell command in a work dir under the temp dir %s', async (_name, pathOf) => {
    const { root, env } = await codex.setup(
      (request) =>
        codex.toolOutput(request) !== undefined
          ? { kind: 'text', text: 'Made it.' }
          : { kind: 'shell', command: 'echo made > made.txt' },
      {},
    );
    const work = await tempDir('ralph-work-');
    const withPath = { ...env, PATH: await pathOf() };
    await ralph(root, ['add', 'Make a file', '--id', 'make', '--work-dir', work], withPath);
    const run = await ralph(root, ['run', '--drain'], withPath);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, 'made.txt'), 'utf8').trim()).toBe('made');
  });
});
