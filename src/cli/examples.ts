import type * as commander from 'commander';

/**
 * One example line for each command, by its path (`queue import`; the program's own is ''):
 * `--help` ends with it.
 */
export const EXAMPLES: Readonly<Record<string, string>> = {
  '': 'ralph -C ~/night run --drain',
  demo: 'ralph demo ~/ralph-demo',
  init: 'ralph init ~/night',
  add: 'ralph add "Fix the flaky login test" --git --gate "npm test" --criterion "the test passes 20 runs in a row"',
  import: 'ralph import github:acme/app --label ralph --dry-run',
  notify: 'ralph notify test',
  'notify test': 'ralph notify test',
  queue: 'ralph queue --json',
  'queue import': 'ralph queue import ../other-night/state/queue.json',
  'queue export': 'ralph queue export night.json',
  db: 'ralph db migrate',
  'db migrate': 'ralph db migrate',
  service: 'ralph -C ~/night service install',
  'service install': 'ralph -C ~/night service install',
  'service status': 'ralph -C ~/night service status',
  'service logs': 'ralph -C ~/night service logs',
  'service uninstall': 'ralph -C ~/night service uninstall',
  retry: 'ralph retry fix-login',
  cancel: 'ralph cancel --all',
  say: 'ralph say fix-login "Use the fixture in test/fixtures, not a new one"',
  stop: 'ralph stop fix-login --requeue',
  land: 'ralph land --dry-run',
  review: 'ralph review fix-login',
  accept: 'ralph accept fix-login add-json-flag',
  reject: 'ralph reject fix-login --note "The test still sleeps; wait on the event instead"',
  defer: 'ralph defer big-refactor --until 2d',
  lessons: 'ralph lessons --json',
  'lessons propose': 'ralph lessons propose',
  rules: 'ralph rules',
  'rules accept': 'ralph rules accept R1 R2',
  'rules reject': 'ralph rules reject R3 --note "we squash on purpose"',
  'rules rm': 'ralph rules rm R1 --note "the generator is gone"',
  recover: 'ralph recover',
  rm: 'ralph rm fix-login --branch',
  edit: 'ralph edit fix-login --priority 5 --max-budget-usd 2',
  run: 'ralph run --drain --workers 3 --until 07:00',
  sessions: 'ralph sessions --item fix-login --since 24h',
  logs: 'ralph logs fix-login --follow',
  show: 'ralph show fix-login',
  diff: 'ralph diff fix-login --stat',
  report: 'ralph report --since 7d',
  plan: 'ralph plan --until 07:00',
  replay: 'ralph replay fix-login',
  agents: 'ralph agents',
  'agents show': 'ralph agents show reviewer',
  serve: 'ralph serve --port 7420',
  status: 'ralph status --watch',
  watch: 'ralph watch',
  doctor: 'ralph doctor',
  pause: 'ralph pause --after-current "deploy freeze"',
  resume: 'ralph resume',
};

/** A command's path below the program: `add`, `queue import`. */
export function commandPath(command: commander.Command): string {
  const names: string[] = [];
  for (let at: commander.Command | null = command; at?.parent; at = at.parent)
    names.unshift(at.name());
  return names.join(' ');
}

/** Every command below `program`, subcommands after their parent. */
export function commandsOf(program: commander.Command): commander.Command[] {
  return program.commands.flatMap((command) => [command, ...commandsOf(command)]);
}

/** Ends each command's `--help` with its example. */
export function addExamples(program: commander.Command): void {
  for (const command of [program, ...commandsOf(program)]) {
    const example = EXAMPLES[commandPath(command)];
    if (example !== undefined) command.addHelpText('after', `\nExample:\n  $ ${example}\n`);
  }
}
