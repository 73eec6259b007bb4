import type * as commander from 'commander';
import { commandPath, commandsOf, EXAMPLES } from '../cli/examples.js';
import { anchor, code, generatedNote, table } from './markdown.js';

/** One command: its usage, what it does, its options as `--help` gives them, its example. */
function commandSection(command: commander.Command, help: commander.Help): string {
  const path = commandPath(command);
  const usage = help.commandUsage(command);
  const aliases = command.aliases();
  const options = help.visibleOptions(command);
  const example = EXAMPLES[path];
  return [
    `## ${path === '' ? 'ralph' : `ralph ${path}`}`,
    '```\n' + usage + '\n```',
    help.commandDescription(command),
    aliases.length > 0 ? `Also: ${aliases.map((a) => code(`ralph ${a}`)).join(', ')}.` : '',
    options.length > 0
      ? table(
          ['option', 'meaning'],
          options.map((o) => [code(help.optionTerm(o)), help.optionDescription(o)]),
        )
      : '',
    example === undefined ? '' : `Example: ${code(example)}`,
  ]
    .filter((part) => part !== '')
    .join('\n\n');
}

/** The command reference of docs/reference/commands.md, from the program's own definitions. */
export function commandReference(program: commander.Command): string {
  const help = program.createHelp();
  const commands = [program, ...commandsOf(program)];
  const index = commandsOf(program).map((c) => {
    const path = `ralph ${commandPath(c)}`;
    return `- [${code(path)}](${anchor(path)}): ${c.description()}`;
  });
  return [
    generatedNote("the program's definitions (`src/cli/main.ts`, `src/cli/examples.ts`)"),
    '# Command reference',
    'Every command and option, as `ralph <command> --help` prints them. Exit codes are in [Troubleshooting](../troubleshooting.md#exit-codes); what each command is for, in [Commands in practice](../commands.md).',
    index.join('\n'),
    ...commands.map((c) => commandSection(c, help)),
  ].join('\n\n');
}
