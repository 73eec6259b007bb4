import { sessionFiles } from '../../archive/paths.js';
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import { shellQuote } from '../../agent/argv.js';
import { FileCache } from '../../lib/file-cache.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { loadPersona } from '../../persona/persona.js';
import { ItemSchema } from '../../queue/item.js';
import { prepareSession } from '../../runner/index.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

const list = (values: readonly string[] | undefined) =>
  values === undefined ? '-' : values.join(',') || '""';

/** `ralph agents`: every persona with its tool scope; a broken file is named with its fault. */
export async function agentsCommand(root: string, output: Output): Promise<number> {
  const { paths } = await openWorkspace(root);
  const names = (await fsp.readdir(paths.agents).catch(() => [] as string[]))
    .filter((name) => /^AGENT_.+\.md$/.test(name))
    .sort();
  if (names.length === 0) {
    output.out(`No personas in ${paths.agents} (files named AGENT_<id>.md).`);
    return ExitCode.ok;
  }
  const cache = new FileCache();
  let broken = 0;
  for (const name of names) {
    const id = name.slice('AGENT_'.length, -'.md'.length);
    try {
      const { settings: s, instructions } = await loadPersona(paths.agents, id, cache);
      output.out(
        `${id}: tools=${list(s.tools)} allowed=${list(s.allowedTools)} disallowed=${list(s.disallowedTools)}` +
          ` max_turns=${s.maxTurns ?? '-'} model=${s.model ?? '-'} permission_mode=${s.permissionMode ?? '-'}` +
          ` (${instructions.length} characters of instructions)`,
      );
    } catch (error) {
      broken++;
      output.err(`${id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return broken > 0 ? ExitCode.usage : ExitCode.ok;
}

/** `ralph agents show ID`: the prompt and command a sample item would get with this persona. */
export async function agentShowCommand(
  root: string,
  id: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const item = ItemSchema.parse({
    id: 'sample-item',
    title: 'A sample item',
    body: '(the task text of the item goes here)',
    agent: id,
    attempts: 1,
  });
  const sessionId = randomUUID();
  const prepared = await prepareSession({
    workspace,
    item,
    identity: { sessionId, iteration: 1, files: sessionFiles(workspace.paths.sessions, sessionId) },
    parentEnv: env,
    cache: new FileCache(),
    mode: 'plan',
  });
  if ('reason' in prepared) throw new InputError(prepared.reason);
  const { sizes, cuts, text } = prepared.prompt;
  output.out(`# Persona ${id}: the appended system prompt for a sample item`);
  output.out(
    `# sizes (characters): identity ${sizes.identity}, project context ${sizes.context}, persona ${sizes.persona}, bootstrap ${sizes.bootstrap}, total ${sizes.total} (cap ${16_000 * 4})`,
  );
  for (const cut of cuts) output.out(`# cut: ${cut.part}, ${cut.removedChars} characters`);
  output.out(`# command: ${shellQuote([prepared.argv.file, ...prepared.argv.args])}`);
  output.out('');
  output.out(text);
  return ExitCode.ok;
}
