import { createRequire } from 'node:module';
import type * as commander from 'commander';
import { defineProgram } from '../cli/main.js';

const never = (): never => {
  throw new Error('the docs read the program; they run no command');
};

/** ralph's program as `--help` defines it, with no command able to run: what the docs read. */
export function programForDocs(): commander.Command {
  const { Command } = createRequire(import.meta.url)('commander') as typeof commander;
  return defineProgram(new Command('ralph'), {
    root: never,
    at: never,
    output: { out: never, err: never, raw: never, isTTY: false },
    env: {},
    done: never,
  });
}
