import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { appliedOrThrow, applyEvent } from '../../queue/lifecycle.js';
import type { Item, ItemEdit } from '../../queue/item.js';
import { withQueue } from '../../queue/open.js';
import { refuseRunning } from '../../queue/selection.js';
import { checkDependencies, checkRunnable } from '../../workspace/admission.js';
import { fieldsFromFlags, flagOf, validateItem } from '../item-flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** Fields `ralph edit` clears when given an empty value, rather than setting them to "". */
const CLEARED_BY_EMPTY = ['model', 'workDir', 'agent', 'schedule', 'notBefore'] as const;

/**
 * `ralph edit ID [flags]`: changes the fields the flags name on an item that is not running,
 * with the checks of `ralph add`; every other field stays as it is. An empty `--depends-on ""`
 * drops the dependencies; an empty `--model ""` (and the like) goes back to the default.
 */
export async function editCommand(
  root: string,
  id: string,
  options: Record<string, unknown>,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const cleared = CLEARED_BY_EMPTY.filter((key) => options[key] === '');
  const given = Object.fromEntries(
    Object.entries(options).filter(([key]) => !(cleared as readonly string[]).includes(key)),
  );
  const fields = await fieldsFromFlags(given, Date.now());
  if (Object.keys(fields).length === 0 && cleared.length === 0)
    throw new InputError(
      'nothing to change: give the flags of the fields to change (ralph help edit)',
    );
  const now = Date.now();
  const edited = await withQueue(workspace, env, async (queue) => {
    const current = (await queue.list()).find((item) => item.id === id);
    if (current === undefined) throw new InputError(`no item ${JSON.stringify(id)} in the queue`);
    refuseRunning(current);
    const next = validateItem(
      appliedOrThrow(applyEvent(current, { kind: 'edited', fields, cleared, now })),
      `item ${JSON.stringify(id)}`,
    );
    await checkRunnable(workspace, next, flagOf, env.PATH);
    // The fields stored as the schema reads them (a gate's words as `{name, command, timeout}`),
    // as `ralph add` stores them: the queue's own writes are not validated again when read.
    const event = { kind: 'edited', fields: validFields(next, fields), cleared, now } as const;
    const applied = await queue.apply(id, event, (changed, closure) => {
      validateItem(changed, `item ${JSON.stringify(id)}`);
      checkDependencies(changed, closure, flagOf);
    });
    if (applied.kind === 'refused') refuseRunning(applied.item ?? current);
    return appliedOrThrow(applied);
  });
  output.out(`${edited.id}: edited (${[...Object.keys(fields), ...cleared].join(', ')})`);
  return ExitCode.ok;
}

/** The edited fields as the validated item holds them. */
function validFields(item: Item, fields: ItemEdit): ItemEdit {
  const all = item as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.keys(fields).map((key) => [key, all[key]]));
}
