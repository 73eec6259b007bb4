// `status` and `ls` are answered without the parser (src/cli/quick-commands.ts): whatever shape
// they take there, they must say what the parser's path says, and every other shape must go to
// the parser.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { quickCommand } from '../../src/cli/quick-commands.js';
import { captureOutput } from '../support/output.js';
import { makeWorkspace, ralph, removeTempDirs, tempDir } from '../support/workspace.js';

afterAll(removeTempDirs);

const env = { PATH: process.env.PATH };

async function both(args: string[]) {
  const quick = quickCommand(args, captureOutput(), env);
  expect(quick, args.join(' ')).toBeDefined();
  const quickOut = captureOutput();
  const quickCode = await quickCommand(args, quickOut, env)?.();
  const parsedOut = captureOutput();
  const parsedCode = await main(['node', 'ralph', ...args], parsedOut, env);
  return {
    quick: { code: quickCode, stdout: quickOut.stdout, stderr: quickOut.stderr },
    parsed: { code: parsedCode, stdout: parsedOut.stdout, stderr: parsedOut.stderr },
  };
}

describe('quick commands', () => {
  it('print what the parser path prints, for every shape they take', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'First task', '--id', 'one']);
    await ralph(root, ['add', 'Second task', '--id', 'two', '--depends-on', 'one']);
    await ralph(root, ['cancel', 'one']);
    const missing = path.join(root, 'not-there');
    const empty = await makeWorkspace();
    for (const args of [
      ['-C', root, 'status'],
      ['--root', root, 'status', '--json'],
      ['-C', root, 'ls'],
      ['-C', root, 'ls', '--json'],
      ['-C', root, 'queue'],
      ['-C', empty, 'ls'],
      ['-C', missing, 'status'],
      ['-C', missing, 'ls'],
    ]) {
      const { quick, parsed } = await both(args);
      expect(quick, args.join(' ')).toEqual(parsed);
      expect([...quick.stdout, ...quick.stderr].join(''), args.join(' ')).not.toBe('');
    }
    // Without -C, the workspace is found from the current directory, as git finds a repository.
    const sub = path.join(root, 'src', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    const cwd = process.cwd();
    process.chdir(sub);
    try {
      const { quick, parsed } = await both(['status', '--json']);
      expect(quick).toEqual(parsed);
      expect(JSON.parse(quick.stdout.join(''))).toMatchObject({ root });
    } finally {
      process.chdir(cwd);
    }
  });

  it('leave every other shape to the parser', async () => {
    const root = await tempDir();
    for (const args of [
      [],
      ['status', '--watch'],
      ['status', '--help'],
      ['-C', root, 'status', '--json', '--json'],
      ['-C', root, 'ls', 'extra'],
      ['-C', root],
      ['-C', '', 'status'],
      ['-C', '--json', 'status'],
      ['--root=x', 'status'],
      ['status', '-C', root],
      ['--json', 'status'],
      ['show', 'status'],
      ['toString'],
      ['-C', root, 'add', 'status'],
    ])
      expect(quickCommand(args, captureOutput(), env), JSON.stringify(args)).toBeUndefined();
  });
});
