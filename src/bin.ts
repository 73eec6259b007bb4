#!/usr/bin/env node
// `--version`, `status` and `ls` are answered before the parser and the other commands are
// loaded: scripts, prompts and watch loops run them often, and a start-up is most of their cost.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('./lib/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const quick = (await import('./cli/quick-commands.js')).quickCommand(args);
  if (quick !== undefined) process.exitCode = await quick();
  else {
    const { main } = await import('./cli/main.js');
    process.exitCode = await main(process.argv);
  }
}
