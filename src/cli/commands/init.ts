import fsp from 'node:fs/promises';
import path from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { CONFIG_FILE } from '../../config/config-file.js';
import { workspacePaths } from '../../config/workspace.js';
import { shellQuote } from '../../agent/argv.js';
import { recordDigest } from '../../lib/digest.js';
import { queueFileText } from '../../queue/file-schema.js';
import { displayPath, ensurePrivateDir, makePrivateDirs, openExclusive } from '../../lib/fs.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { BOOTSTRAP_PROMPT, CONFIG_JSON_SCHEMA } from '../../lib/package-files.js';
import { bubblewrapOf, probeSandbox } from '../../sandbox/probe.js';
import { isErrnoException } from '../../lib/errors.js';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Output } from '../output.js';

/** Writes a new file; false when something is already there (it is never overwritten). */
function createFile(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openExclusive(file);
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * `ralph init [dir]`: lays out a workspace with the defaults spelled out, its agents in a
 * bubblewrap sandbox when bubblewrap works here.
 */
export async function initCommand(
  root: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const probe = await probeSandbox(bubblewrapOf(env));
  const config = ConfigSchema.parse({ sandbox: { kind: probe.ok ? 'bwrap' : 'none' } });
  const paths = workspacePaths(root, config);
  const created: string[] = [];
  const kept: string[] = [];
  await makePrivateDirs(root);
  for (const dir of [paths.state, paths.sessions, path.dirname(paths.bootstrap), paths.agents]) {
    const existed = await fsp.stat(dir).then(
      () => true,
      () => false,
    );
    await ensurePrivateDir(dir);
    (existed ? kept : created).push(`${displayPath(dir, root)}/`);
  }
  // The schema shipped with this ralph, so an editor completes and checks the file.
  const spelledOut = { $schema: pathToFileURL(CONFIG_JSON_SCHEMA).href, ...config };
  const files: [string, string][] = [
    [path.join(root, CONFIG_FILE), `${JSON.stringify(spelledOut, null, 2)}\n`],
    [paths.bootstrap, await fsp.readFile(BOOTSTRAP_PROMPT, 'utf8')],
    [paths.queue, queueFileText(0, [])],
  ];
  for (const [file, content] of files) {
    const made = createFile(file, content);
    // The empty queue is ralph's own: the next read need not validate it.
    if (made && file === paths.queue) await recordDigest(file, content);
    (made ? created : kept).push(displayPath(file, root));
  }
  output.out(`Workspace ${root}`);
  for (const entry of created) output.out(`  created ${entry}`);
  for (const entry of kept) output.out(`  kept    ${entry} (already there)`);
  if (created.includes(CONFIG_FILE))
    output.out(
      probe.ok
        ? 'Sandbox: bwrap (bubblewrap works here: each agent and its gates in a sandbox of their own)'
        : `Sandbox: none (${probe.problem})`,
    );
  const away = path.relative(process.cwd(), root);
  const cd = away === '' ? '' : `cd ${shellQuote([away.startsWith('..') ? root : away])} && `;
  output.out(`Next: ${cd}ralph add "<task>" && ralph run --drain`);
  return ExitCode.ok;
}
