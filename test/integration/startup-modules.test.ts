// What the commands people run often load: nothing they do not use. Counted, not timed (a fast
// machine hides a slow start): each command runs under a loader hook that records every module,
// on a workspace whose configuration is cached (as after any first command). A file of the
// bundles (dist/quick, dist/main) counts as the modules it holds.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RALPH_BIN, tempDir } from '../support/workspace.js';

const TRACE = fileURLToPath(new URL('../fixtures/module-trace/register.mjs', import.meta.url));
const run = promisify(execFile);

/** Packages none of these commands needs: validation, cron, the database, the server. */
const UNUSED = /\/node_modules\/(zod|yaml|cron-parser|luxon|pg|pg-[a-z-]+|hono|@hono|@octokit)\//;
/** What `status` and `ls` leave out as well: the parser, and the code that changes the queue. */
const NOT_QUICK =
  /\/node_modules\/commander\/|\/dist\/queue\/(file-queue|transitions|selection)\.js$/;
/** The runner's loop and what it drives (its state readers are what `status` shows). */
const RUNNER = /\/dist\/runner\/(index|loop|attempt|iteration|landing|checks|fleet|prepare)\.js$/;

/** The package's root: the bundles' metafiles name files from there. */
const PACKAGE = path.dirname(path.dirname(RALPH_BIN));
const QUICK = path.join(PACKAGE, 'dist', 'quick');

/** Each file of the bundles, by URL, and the URLs of the modules it holds. */
function bundled(): Map<string, string[]> {
  const url = (file: string) => pathToFileURL(path.join(PACKAGE, file)).href;
  return new Map(
    ['quick', 'main'].flatMap((dir) => {
      const meta = JSON.parse(
        fs.readFileSync(path.join(PACKAGE, 'dist', dir, 'meta.json'), 'utf8'),
      ) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
      return Object.entries(meta.outputs).map(([file, { inputs }]) => [
        url(file),
        Object.keys(inputs).map(url),
      ]);
    }),
  );
}

/** The files a command loads, as the loader hook saw them. */
async function filesOf(root: string, args: string[]): Promise<string[]> {
  const trace = path.join(root, `trace-${args.at(-1)?.replace(/\W/g, '') ?? ''}.txt`);
  await run(process.execPath, ['--import', TRACE, RALPH_BIN, ...args], {
    env: { PATH: process.env.PATH, MODULE_TRACE: trace },
  });
  return fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
}

/** The modules those files are: a file of the bundle is the modules it holds. */
function modulesIn(files: string[], bundle: Map<string, string[]>): string[] {
  return files.flatMap((url) => bundle.get(url) ?? [url]);
}

describe('start-up', () => {
  it('status, ls, pause, resume and --version load no validation, cron, database, server or runner loop; status and ls no parser', async () => {
    const root = await tempDir('ralph-startup-');
    const cli = (...args: string[]) => run(process.execPath, [RALPH_BIN, '-C', root, ...args]);
    await cli('init', root, '--project', await tempDir('ralph-project-'));
    await cli('add', 'One task', '--id', 'one');
    await cli('add', 'Every night', '--id', 'nightly', '--schedule', '0 3 * * *');
    // The first command validates the configuration and caches it.
    await cli('status');
    const bundle = bundled();
    const modulesOf = async (args: string[]) => modulesIn(await filesOf(root, args), bundle);
    for (const args of [
      ['--version'],
      ['-C', root, 'status'],
      ['-C', root, 'ls'],
      ['-C', root, 'pause', 'for a while'],
      ['-C', root, 'resume'],
    ]) {
      const modules = await modulesOf(args);
      expect(modules.length, args.join(' ')).toBeGreaterThan(0);
      expect(
        modules.filter((m) => UNUSED.test(m) || RUNNER.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
    for (const command of ['status', 'ls']) {
      const files = await filesOf(root, ['-C', root, command]);
      // status and ls are answered without the parser, and read the queue without changing it.
      expect(
        modulesIn(files, bundle).filter((m) => NOT_QUICK.test(m)),
        command,
      ).toEqual([]);
      // They are answered from the bundle: none of their modules is loaded on its own (bin.js
      // asks quick-args.js, which imports nothing, whether the command is quick).
      expect(
        files.some((url) => url.startsWith(pathToFileURL(QUICK).href)),
        command,
      ).toBe(true);
      expect(
        files.filter((url) => /\/dist\/(?!bin\.js$|cli\/quick-args\.js$|quick\/)/.test(url)),
        command,
      ).toEqual([]);
    }
    // --version is answered before the parser and the commands are loaded.
    const version = await modulesOf(['--version']);
    expect(
      [...new Set(version.filter((m) => m.startsWith('file:')))].map((m) =>
        path.relative(path.dirname(RALPH_BIN), fileURLToPath(m)),
      ),
    ).toEqual(['bin.js', path.join('lib', 'version.js')]);
    // The hook sees what is loaded: a command that validates (add) loads the schema library.
    const add = await modulesOf(['-C', root, 'add', 'Two', '--id', 'two']);
    expect(add.some((m) => /\/node_modules\/zod\//.test(m))).toBe(true);
  });

  it("bundles only the parts of the schema library ralph uses: none of zod's locales but the one it sets", () => {
    // `import { z } from 'zod'` anywhere would bring the whole library, every locale with it.
    const zod = [...bundled().values()].flat().filter((m) => m.includes('/node_modules/zod/'));
    expect(zod.length).toBeGreaterThan(0);
    expect(zod.filter((m) => /\/locales\/(?!en\.js$)/.test(m))).toEqual([]);
  });
});
