#!/usr/bin/env node
import type { quickCommand as QuickCommand } from './cli/quick-commands.js';

/**
 * The quick commands as the build bundles them (scripts/build-quick.mjs): a few files to load
 * where their modules are some thirty.
 */
async function quickCommands(): Promise<{ quickCommand: typeof QuickCommand }> {
  const bundled = './quick/quick-commands.js';
  return (await import(bundled)) as { quickCommand: typeof QuickCommand };
}

// `--version`, `status` and `ls` are answered before the parser and the other commands are
// loaded: scripts, prompts and watch loops run them often, and a start-up is most of their cost.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('./lib/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { quickArgs } = await import('./cli/quick-args.js');
  const quick =
    quickArgs(args) === undefined ? undefined : (await quickCommands()).quickCommand(args);
  if (quick !== undefined) process.exitCode = await quick();
  else {
    const { main } = await import('./cli/main.js');
    process.exitCode = await main(process.argv);
  }
}
