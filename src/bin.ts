#!/usr/bin/env node
import type { main as Main } from './cli/main.js';
import type { quickCommand as QuickCommand } from './cli/quick-commands.js';

/**
 * An entry of the bundles the build makes (scripts/build-bundle.mjs): a few files to load where
 * the compiled modules it needs are tens, or hundreds.
 */
async function bundled<T>(entry: string): Promise<T> {
  const file = `./${entry}.js`;
  return (await import(file)) as T;
}

// `--version`, `status` and `ls` are answered before the parser and the other commands are
// loaded: scripts, prompts and watch loops run them often, and a start-up is most of their cost.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('./lib/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { quickArgs } = await import('./cli/quick-args.js');
  let quick: ReturnType<typeof QuickCommand>;
  if (quickArgs(args) !== undefined) {
    const { quickCommand } = await bundled<{ quickCommand: typeof QuickCommand }>(
      'quick/quick-commands',
    );
    quick = quickCommand(args);
  }
  if (quick !== undefined) process.exitCode = await quick();
  else {
    const { main } = await bundled<{ main: typeof Main }>('main/main');
    process.exitCode = await main(process.argv);
  }
}
