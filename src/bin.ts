#!/usr/bin/env node
// `--version` is answered before the parser and the commands are loaded: scripts and prompts
// ask for it often, and a start-up is most of what it costs.
const [, , first, ...rest] = process.argv;
if (rest.length === 0 && (first === '--version' || first === '-V')) {
  const { VERSION } = await import('./lib/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import('./cli/main.js');
  process.exitCode = await main(process.argv);
}
