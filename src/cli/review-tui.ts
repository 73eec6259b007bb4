import { stripVTControlCharacters } from 'node:util';
import readline from 'node:readline';
import type { IndexEntry } from '../archive/index-entry.js';
import type { Workspace } from '../config/workspace.js';
import { systemClock } from '../lib/clock.js';
import { ExitCode } from '../lib/exit-codes.js';
import type { DecisionKind } from '../queue/decision-kinds.js';
import { withQueue } from '../queue/open.js';
import { decide, parseUntil } from '../workspace/decide.js';
import { reviewInbox, type InboxRow } from '../workspace/review-inbox.js';
import { reviewPage } from '../workspace/review-page.js';
import { decidedText } from '../workspace/decide.js';
import { carryOut, personOfTerminal, reviewState } from './review-state.js';
import { COLOURS, partsLine, pageLines } from './review-text.js';
import type { Rule } from '../lessons/state.js';
import { decideRule } from '../lessons/decide.js';
import { proposedRules, rulePage } from '../workspace/rule-page.js';
import { ruleLine, rulePageLines } from './rule-text.js';

// `ralph review` on a terminal: the inbox as a list to move through with j/k, one key per
// decision (a accept, r reject with a note, d defer), enter for the item's whole page; the rules
// proposed from the lessons under the items, each accepted or rejected the same way.

type Env = Readonly<Record<string, string | undefined>>;
type Key = readline.Key | undefined;

const KEYS = 'j/k move · enter open · a accept · r reject · d defer · q quit';

const { stdin, stdout } = process;

/** Cuts a line to the terminal's width (the lines cut hold no escape sequences). */
const fit = (line: string, width: number) =>
  line.length > width ? `${line.slice(0, width - 1)}…` : line;

const height = () => stdout.rows || 24;

/** A row of the inbox: an item that waits on the person, or a rule proposed to them. */
type Row = { kind: 'item'; row: InboxRow } | { kind: 'rule'; rule: Rule };

const rowsOf = (items: readonly InboxRow[], rules: readonly Rule[]): Row[] => [
  ...items.map((row) => ({ kind: 'item' as const, row })),
  ...rules.map((rule) => ({ kind: 'rule' as const, rule })),
];

/** The row's line in the list. */
const listLine = (row: Row) =>
  row.kind === 'item'
    ? `${String(row.row.score).padStart(3)}  ${row.row.item.id}  ${row.row.what}`
    : `  +  ${ruleLine(row.rule)}`;

/** The selected row's details under the list. */
function details(row: Row | undefined, width: number): string[] {
  if (row === undefined) return ['Nothing waits on you.'];
  if (row.kind === 'rule')
    return [
      fit(`${row.rule.id}: ${row.rule.text}`, width),
      fit(
        `scope: ${row.rule.scope.length === 0 ? 'the whole repository' : row.rule.scope.join(', ')}`,
        width,
      ),
      fit(`rests on: ${row.rule.evidence.join(', ')} (enter shows them)`, width),
    ];
  const { row: item } = row;
  return [
    fit(`${item.item.id}: ${item.item.title}`, width),
    fit(`why: ${partsLine(item)}`, width),
    fit(`how: ${item.chain === '' ? '—' : item.chain}`, width),
  ];
}

/** The inbox with the selected row's details and the last thing said, drawn whole. */
function drawInbox(rows: readonly Row[], at: number, said: string): void {
  const width = stdout.columns || 80;
  const listHeight = Math.max(3, height() - 9);
  const first = Math.min(
    Math.max(0, at - Math.floor(listHeight / 2)),
    Math.max(0, rows.length - listHeight),
  );
  const lines = [
    COLOURS.bold(`ralph review: ${rows.length} waiting on you`),
    COLOURS.dim(KEYS),
    '',
  ];
  rows.slice(first, first + listHeight).forEach((row, i) => {
    const selected = first + i === at;
    const line = fit(`${selected ? '>' : ' '} ${listLine(row)}`, width);
    lines.push(selected ? `\x1b[7m${line}\x1b[0m` : line);
  });
  lines.push('', ...details(rows[at], width), '', fit(said, width));
  stdout.write(`\x1b[H\x1b[2J${lines.join('\r\n')}`);
}

/** Asks for a line at the bottom of the screen, the terminal cooked meanwhile. */
function ask(question: string): Promise<string> {
  return new Promise((resolve) => {
    stdin.setRawMode(false);
    stdout.write('\r\n');
    const rl = readline.createInterface({ input: stdin, output: stdout, terminal: true });
    rl.question(question, (answer) => {
      rl.close();
      // Closing a readline pauses its input: the keys go on coming.
      stdin.resume();
      stdin.setRawMode(true);
      resolve(answer.trim());
    });
  });
}

/**
 * A line as the terminal shows it, in rows of `width`: a line longer than the screen is wrapped
 * here, so that the rows drawn are the rows counted (a wrapped row loses its colour).
 */
function screenRows(line: string, width: number): string[] {
  // Its colours' escape sequences take no width on the screen.
  const plain = stripVTControlCharacters(line);
  if (plain.length <= width) return [line];
  const rows: string[] = [];
  for (let at = 0; at < plain.length; at += width) rows.push(plain.slice(at, at + width));
  return rows;
}

/** Lines to scroll through (j/k, space) until q. */
function pageView(lines: readonly string[]): Promise<void> {
  let top = 0;
  const rows = () => lines.flatMap((line) => screenRows(line, stdout.columns || 80));
  return new Promise<void>((resolve) => {
    const draw = () =>
      stdout.write(
        `\x1b[H\x1b[2J${rows()
          .slice(top, top + height() - 1)
          .join('\r\n')}\r\n${COLOURS.dim('j/k scroll · space page · q back')}`,
      );
    const bottom = () => Math.max(0, rows().length - height() + 1);
    const onKey = (_: string, key: Key) => {
      const name = key?.name;
      if (name === 'q' || name === 'escape' || (key?.ctrl === true && name === 'c')) {
        stdin.off('keypress', onKey);
        resolve();
        return;
      }
      if (name === 'j' || name === 'down') top = Math.min(top + 1, bottom());
      if (name === 'k' || name === 'up') top = Math.max(0, top - 1);
      if (name === 'space') top = Math.min(top + height() - 1, bottom());
      draw();
    };
    stdin.on('keypress', onKey);
    draw();
  });
}

/** A decision on a proposed rule: accepted, or rejected with a note (so it is not proposed again). */
async function decideOnRule(
  workspace: Workspace,
  env: Env,
  rule: Rule,
  kind: DecisionKind,
): Promise<string> {
  if (kind === 'deferred') return `${rule.id} is accepted or rejected: a rule is not deferred`;
  const note =
    kind === 'rejected'
      ? await ask(`Reject ${rule.id}: why (it is not proposed again): `)
      : undefined;
  const by = personOfTerminal();
  const decided = await withQueue(workspace, env, (queue) =>
    decideRule(workspace, queue, { rule: rule.id, kind, by, note }, systemClock.now()),
  );
  const change =
    decided.change === undefined ? [] : await carryOut(workspace, env, [decided.change]);
  const landed = change[0]?.landedCommit !== undefined;
  return `${rule.id} ${kind}${decided.change === undefined ? '' : landed ? `: ${decided.change.id} landed it in the repository` : `: ${decided.change.id} carries it into the repository`}`;
}

/** Asks what the decision needs (a note, a date), takes it, and says what became of it. */
async function decideOn(
  workspace: Workspace,
  env: Env,
  row: InboxRow,
  kind: DecisionKind,
  entries: readonly IndexEntry[],
  reviewMs: number | undefined,
): Promise<string> {
  let note: string | undefined;
  let then: 'retry' | 'cancel' = 'retry';
  let until: number | undefined;
  if (kind === 'rejected') {
    note = await ask(`Reject ${row.item.id}: a note for its next attempt (empty: cancel it): `);
    if (note === '') {
      if ((await ask(`Cancel ${row.item.id}? [y/N] `)).toLowerCase() !== 'y')
        return 'nothing decided';
      then = 'cancel';
      note = undefined;
    }
  }
  if (kind === 'deferred') {
    const answer = await ask(`Defer ${row.item.id} until (3d, 12h, a date) [1d]: `);
    until = parseUntil(answer === '' ? '1d' : answer, systemClock.now());
  }
  const now = systemClock.now();
  const by = personOfTerminal();
  const asked = { itemId: row.item.id, kind, by, note, then, until, reviewMs };
  const { item } = await withQueue(workspace, env, (queue) =>
    decide(workspace, queue, asked, entries, now),
  );
  const [after] = await carryOut(workspace, env, [item]);
  return decidedText(kind, after ?? item);
}

const DECISION_KEYS: Readonly<Record<string, DecisionKind>> = {
  a: 'accepted',
  r: 'rejected',
  d: 'deferred',
};

/** The interactive inbox until q: each decision taken and carried out, the list read again. */
export async function interactiveReview(
  workspace: Workspace,
  env: Env,
  initial: readonly InboxRow[],
  initialEntries: readonly IndexEntry[],
  initialRules: readonly Rule[],
): Promise<number> {
  let rows = rowsOf(initial, initialRules);
  let entries = initialEntries;
  let at = 0;
  let said = '';
  /** How long each item's page was open, for the report of the person's time per decision. */
  const pageTime = new Map<string, number>();
  readline.emitKeypressEvents(stdin);
  stdin.setRawMode(true);
  stdout.write('\x1b[?1049h'); // the alternate screen: the person's scrollback stays as it was
  const refresh = async () => {
    const state = await reviewState(workspace, env);
    entries = state.entries;
    rows = rowsOf(
      reviewInbox(state.items, entries, workspace.config.review.sensitive, systemClock.now()),
      await proposedRules(workspace),
    );
    at = Math.min(at, Math.max(0, rows.length - 1));
  };
  drawInbox(rows, at, said);
  return new Promise<number>((resolve) => {
    const act = (work: () => Promise<string | void>) => {
      stdin.off('keypress', onKey);
      void work()
        .then(async (text) => {
          if (typeof text === 'string') said = text;
          await refresh();
        })
        .catch((error: unknown) => {
          said = error instanceof Error ? error.message : String(error);
        })
        .finally(() => {
          stdin.on('keypress', onKey);
          drawInbox(rows, at, said);
        });
    };
    const onKey = (_: string, key: Key) => {
      const name = key?.name ?? '';
      const row = rows[at];
      if (name === 'q' || (key?.ctrl === true && name === 'c')) {
        stdin.off('keypress', onKey);
        stdin.setRawMode(false);
        stdin.pause();
        stdout.write('\x1b[?1049l');
        resolve(ExitCode.ok);
        return;
      }
      if (name === 'j' || name === 'down') at = Math.min(at + 1, Math.max(0, rows.length - 1));
      if (name === 'k' || name === 'up') at = Math.max(0, at - 1);
      const kind = DECISION_KEYS[name];
      const id = row === undefined ? '' : row.kind === 'item' ? row.row.item.id : row.rule.id;
      if (row !== undefined && kind !== undefined) {
        // Drawn before the decision asks its question below the list.
        said = `${kind.replace(/ed$/, 'ing')} ${id}…`;
        drawInbox(rows, at, said);
        act(() =>
          row.kind === 'rule'
            ? decideOnRule(workspace, env, row.rule, kind)
            : decideOn(workspace, env, row.row, kind, entries, pageTime.get(id)),
        );
        return;
      }
      if (row !== undefined && ['return', 'enter', 'o'].includes(name))
        act(async () => {
          const opened = systemClock.now();
          if (row.kind === 'rule') {
            const items = (await reviewState(workspace, env)).items;
            await pageView(rulePageLines(await rulePage(workspace, items, id), COLOURS));
            return;
          }
          await pageView(
            pageLines(await reviewPage(workspace, row.row.item, entries, opened), COLOURS),
          );
          pageTime.set(id, (pageTime.get(id) ?? 0) + systemClock.now() - opened);
        });
      drawInbox(rows, at, said);
    };
    stdin.on('keypress', onKey);
  });
}
