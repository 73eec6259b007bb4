import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { jsonSchemaProblems } from './config-json-schema.js';
import { TEST_RUN_MARKER } from './leak-check.js';
import { captureOutput } from './output.js';

/** The fake claude of the test suite. */
export const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/fake-claude.mjs', import.meta.url));
/** The real claude CLI, pinned as a devDependency. */
export const REAL_CLAUDE = fileURLToPath(
  new URL('../../node_modules/.bin/claude', import.meta.url),
);
/** The built CLI. */
export const RALPH_BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

const tempDirs = new Set<string>();

/** A fresh temporary directory, removed after its test file by `removeTempDirs`. */
export async function tempDir(prefix = 'ralph-test-'): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/**
 * Removes every directory `tempDir` made (best effort: a test may leave one unwritable), unless
 * RALPH_KEEP_TEST_DIRS is set, to look at what a failing test left.
 */
export async function removeTempDirs(): Promise<void> {
  if (process.env.RALPH_KEEP_TEST_DIRS !== undefined) return;
  const dirs = [...tempDirs];
  tempDirs.clear();
  await Promise.all(
    dirs.map((dir) =>
      fsp.rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined),
    ),
  );
}

/**
 * A workspace made by `ralph init` (without the sandbox), its project `project/` inside it, with
 * config overrides merged in.
 */
export async function makeWorkspace(
  config: Record<string, unknown> = {},
  at?: string,
): Promise<string> {
  const root = at ?? (await tempDir());
  const output = captureOutput();
  const code = await main(['node', 'ralph', 'init', root], output);
  if (code !== 0) throw new Error(`init failed: ${output.text()}`);
  const file = path.join(root, 'ralph.config.json');
  const current = JSON.parse(await fsp.readFile(file, 'utf8')) as Record<string, unknown>;
  // The suite's fakes keep ledgers outside the work dir: a test asks for the sandbox itself.
  current.sandbox = { ...(current.sandbox as object), kind: 'none' };
  // The project the agents work on, unless the test names its own: never the workspace.
  await fsp.mkdir(path.join(root, 'project'), { recursive: true });
  current.defaults = { ...(current.defaults as object), workDir: 'project' };
  // The machine's sleep inhibitor and the CLIs' logins are asked for by the tests of them alone.
  current.run = { ...(current.run as object), keepAwake: false, checkLogins: false };
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(config)) {
    const base = current[key];
    merged[key] =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      typeof base === 'object'
        ? { ...(base as object), ...value }
        : value;
  }
  // What ralph accepts, an editor checking the file against the shipped JSON Schema accepts too.
  const problems = ConfigSchema.safeParse(merged).success ? jsonSchemaProblems(merged) : [];
  if (problems.length > 0)
    throw new Error(
      `schema/ralph.config.schema.json refuses a valid configuration: ${problems.join('; ')}`,
    );
  await fsp.writeFile(file, JSON.stringify(merged, null, 2));
  return root;
}

/** Runs the CLI in process against a workspace; returns its exit code and what it printed. */
export async function ralph(
  root: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = captureOutput();
  const code = await main(['node', 'ralph', '-C', root, ...args], output, {
    PATH: process.env.PATH,
    [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER],
    ...env,
  });
  return { code, stdout: output.stdout.join('\n'), stderr: output.stderr.join('\n') };
}

/** Reads a workspace's queue file. */
export function readQueue(root: string): { version: number; items: Record<string, unknown>[] } {
  return JSON.parse(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8')) as {
    version: number;
    items: Record<string, unknown>[];
  };
}

/** Reads the archived session records of a workspace, oldest first. */
export function readSessions(root: string): Record<string, unknown>[] {
  const dir = path.join(root, 'docs', 'sessions');
  return fs
    .readdirSync(dir)
    .filter((name) => /^[0-9a-f-]{36}\.json$/.test(name))
    .map(
      (name) =>
        JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Record<string, unknown>,
    )
    .sort(
      (a, b) =>
        String(a.startedAt).localeCompare(String(b.startedAt)) ||
        Number(a.iteration) - Number(b.iteration),
    );
}

/** Every file under a directory, as paths relative to it. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/** The records of the sessions running in a workspace (`state/running/`), oldest first. */
export function runningRecords(
  root: string,
): { sessionId: string; status: string; pid: number; itemId: string; workDir: string }[] {
  const dir = path.join(root, 'state', 'running');
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
  return names
    .map((name) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as {
          sessionId: string;
          status: string;
          pid: number;
          itemId: string;
          workDir: string;
          startedAt: string;
        };
      } catch {
        return undefined;
      }
    })
    .filter((r) => r !== undefined)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/**
 * Adds an item titled and named `id` in a work dir of its own: without git mode, items run side
 * by side with workers only in different work dirs.
 */
export async function addInOwnDir(
  root: string,
  id: string,
  body: string,
  env: Record<string, string | undefined> = {},
): Promise<void> {
  await ralph(root, ['add', id, '--id', id, '--work-dir', await tempDir(), '--body', body], env);
}
