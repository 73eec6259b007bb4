import type { Workspace } from '../config/workspace.js';
import { ControlFiles } from '../control/files.js';
import { InputError, NotFoundError } from '../lib/errors.js';
import { MAX_BODY_CHARS } from '../prompt/assemble.js';
import type { Item } from '../queue/item.js';
import type { Queue } from '../queue/queue.js';
import { statusIs, holderOf } from '../queue/item-status.js';
import { stopItems, stopTimeoutMs } from './stop.js';

/** What became of a message to an item. */
export type Said =
  /** Kept for the item's next session (it waits, or the night is paused). */
  | { kind: 'kept'; status: string }
  /** It answered the item's question: the item is back first in line. */
  | { kind: 'answered' }
  /** Its running session's CLI was given it on its stdin, mid-task. */
  | { kind: 'given' }
  /** Its session was stopped to resume its conversation with the message, first in line. */
  | { kind: 'resuming' }
  /** Its runner did not stop the session in time: the message is kept for the next one. */
  | { kind: 'not_in_time' };

/**
 * `ralph say` and `POST /items/:id/messages`: records a person's message on an item that is not
 * finished, for its next session. A running item's session is given it at once: on its CLI's
 * stdin where the CLI reads messages mid-task (claude), else by stopping it (the kill ladder)
 * and resuming its conversation with the message, first in line; an item that asked a person
 * something is answered and goes back in line.
 */
export async function sayToItem(
  workspace: Workspace,
  queue: Pick<Queue, 'dependencyClosure' | 'apply'>,
  id: string,
  message: { text: string; from: string; runnerLive: boolean },
): Promise<Said> {
  const text = message.text.trim();
  if (text === '') throw new InputError('the message is empty', 'text');
  if (text.length > MAX_BODY_CHARS)
    throw new InputError(
      `the message is ${text.length.toLocaleString('en-US')} characters; one holds at most ${MAX_BODY_CHARS.toLocaleString('en-US')} (put a long text in a file of the work dir and say where it is)`,
      'text',
    );
  const itemOf = async () => (await queue.dependencyClosure([id])).find((i) => i.id === id);
  const before = await itemOf();
  if (before === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
  const finished = (status: string) => `${id} is ${status}: a finished item takes no message`;
  const asked = statusIs(before.status, 'asksPerson');
  const refused = asked ? stillRefused(workspace, before) : undefined;
  if (refused !== undefined)
    throw new InputError(
      `${id} waits for its allowlist, not an answer: it was refused ${refused.tools.join(', ')}, which its allowedTools still refuse, so an answer would only be refused again. Allow them first: ralph edit ${id} --allowed-tools ${[...refused.allowed, ...refused.tools].join(',')}, then say this again; or, to have it do without them, change its task (ralph edit ${id} --body …) and retry it`,
    );
  if (!statusIs(before.status, 'takesMessages')) throw new InputError(finished(before.status));
  const now = Date.now();
  const applied = await queue.apply(id, {
    kind: 'messaged',
    message: { text, from: message.from, at: new Date(now).toISOString() },
    now,
  });
  if (applied.kind === 'refused') throw new InputError(finished(applied.item?.status ?? 'gone'));
  const after = applied.item;
  if (asked) return { kind: 'answered' };
  if (holderOf(after.status) !== 'worker' || !message.runnerLive)
    return { kind: 'kept', status: after.status };
  const left = await stopItems(
    new ControlFiles(workspace.paths),
    [id],
    { cancel: false, by: message.from, message: true },
    stopTimeoutMs(workspace.config.run.killGrace),
  );
  if (left.length > 0) return { kind: 'not_in_time' };
  const later = await itemOf();
  const sent = later?.messages?.find((m) => m.at === new Date(now).toISOString());
  if (sent?.session !== undefined && sent.session === after.sessions.at(-1))
    return { kind: 'given' };
  // Stopped to resume with it (waiting first in line, or resumed already); or its agent had
  // ended (its gates ran): kept for its next session.
  const resumed =
    later !== undefined &&
    holderOf(later.status) === 'worker' &&
    later.sessions.at(-1) !== after.sessions.at(-1);
  return (later !== undefined && statusIs(later.status, 'resumesSession')) || resumed
    ? { kind: 'resuming' }
    : { kind: 'kept', status: later?.status ?? 'gone' };
}

/** How the runner words a question that is a refusal of tools by the allowlist. */
const REFUSED_TOOLS = /^tools refused by the permission mode: ([^.]+)\./;

/**
 * The tools an item waiting on a refusal was refused that its allowlist still refuses, or
 * undefined (another question, or a persona's allowlist this module cannot read).
 */
function stillRefused(
  workspace: Workspace,
  item: Item,
): { tools: string[]; allowed: readonly string[] } | undefined {
  const tools = REFUSED_TOOLS.exec(item.question ?? '')?.[1]?.split(', ');
  if (tools === undefined) return undefined;
  const { defaults } = workspace.config;
  if (item.allowedTools === undefined && (item.agent ?? defaults.agent) !== undefined)
    return undefined;
  const allowed = item.allowedTools ?? defaults.allowedTools;
  const still = tools.filter(
    (tool) => !allowed.some((rule) => rule === tool || rule.startsWith(`${tool}(`)),
  );
  return still.length === 0 ? undefined : { tools: still, allowed };
}

/** What a message came to, for people. */
export function saidText(id: string, said: Said): string {
  switch (said.kind) {
    case 'kept':
      return `${id}: message kept for its next session (it is ${said.status})`;
    case 'answered':
      return `${id}: answered; back first in line, resuming its conversation with your answer`;
    case 'given':
      return `${id}: given to its running session, which takes it into the turn under way`;
    case 'resuming':
      return `${id}: its session was stopped and resumes now with your message, first in line`;
    case 'not_in_time':
      return `${id}: message kept; the runner did not stop its session in time, so its next session gets it`;
  }
}
