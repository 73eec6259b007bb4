import { formatUsd, plural } from '../lib/text.js';
import { formatDuration } from '../lib/duration.js';
import type { InboxRow } from '../workspace/review-inbox.js';
import type { ReviewPage } from '../workspace/review-page.js';
import type { DecisionVerb } from '../queue/decision-kinds.js';
import { candidateLines } from './candidate-text.js';

// The review inbox and an item's review page as a terminal shows them, coloured on a terminal.

/** ANSI colours, or none off a terminal. */
export interface Paint {
  bold: (text: string) => string;
  dim: (text: string) => string;
  red: (text: string) => string;
  green: (text: string) => string;
  cyan: (text: string) => string;
  yellow: (text: string) => string;
}

const sgr = (code: number) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
export const COLOURS: Paint = {
  bold: sgr(1),
  dim: sgr(2),
  red: sgr(31),
  green: sgr(32),
  cyan: sgr(36),
  yellow: sgr(33),
};
const same = (text: string) => text;
export const PLAIN: Paint = {
  bold: same,
  dim: same,
  red: same,
  green: same,
  cyan: same,
  yellow: same,
};

/** The parts of a row's score, in a line: `sensitive +24 (2 sensitive paths: a, b) · …`. */
export function partsLine(row: InboxRow): string {
  if (row.parts.length === 0) return 'nothing raises it';
  return row.parts.map((p) => `${p.name} +${p.points} (${p.why})`).join(' · ');
}

/** One item of the inbox: its score, id and title, what happened, why its score, how it came. */
export function inboxEntry(row: InboxRow, paint: Paint): string[] {
  const { item } = row;
  const score = String(row.score).padStart(3);
  const painted =
    row.score >= 40 ? paint.red(score) : row.score >= 15 ? paint.yellow(score) : score;
  return [
    `${painted}  ${paint.bold(item.id)}  ${item.title}`,
    `     ${row.waits === 'decide' ? '' : `${row.waits === 'answer' ? 'to answer' : 'to look at'}: `}${row.what}`,
    `     ${paint.dim(`why: ${partsLine(row)}`)}`,
    ...(row.chain === '' ? [] : [`     ${paint.dim(`how: ${row.chain}`)}`]),
  ];
}

/** The inbox, most at risk first, with what to do next. */
export function inboxLines(rows: readonly InboxRow[], paint: Paint): string[] {
  if (rows.length === 0)
    return ['Nothing waits on you: every item is decided, running or in line.'];
  return [
    `${plural(rows.length, 'item')} wait${rows.length === 1 ? 's' : ''} on you, most at risk first:`,
    '',
    ...rows.flatMap((row) => [...inboxEntry(row, paint), '']),
    'One item whole: ralph review <id>. Decide: ralph accept <id>, ralph reject <id> --note "…" [--cancel], ralph defer <id> --until 2d.',
  ];
}

/** An item's review page: everything needed to decide on it. */
export function pageLines(page: ReviewPage, paint: Paint): string[] {
  const { item, row } = page;
  const lines: string[] = [
    `${paint.bold(item.id)}  ${item.title}`,
    `status ${item.status}${row === undefined ? '' : ` · risk ${row.score}`} · ${plural(page.sessions, 'session')}${page.reviews === 0 ? '' : ` (${plural(page.reviews, 'review')})`} · $${formatUsd(page.costUsd)} · ${formatDuration(Math.round(page.durationMs / 1000))}`,
  ];
  if (row !== undefined)
    lines.push(
      `what: ${row.what}`,
      `why:  ${partsLine(row)}`,
      ...(row.chain === '' ? [] : [`how:  ${row.chain}`]),
    );
  if (item.decision !== undefined)
    lines.push(
      `decided: ${item.decision.kind} by ${item.decision.by} at ${item.decision.at}${item.decision.note === undefined ? '' : `: ${item.decision.note}`}${item.decision.failure === undefined ? '' : ` — not carried out: ${item.decision.failure}`}`,
    );
  lines.push('', paint.bold('Task'), ...indent(page.task));
  if (page.criteria.length > 0) {
    lines.push('', paint.bold('Criteria'));
    page.criteria.forEach((c, i) => {
      const verdict =
        c.verdict === undefined
          ? paint.dim('not reviewed')
          : c.verdict === 'PASS'
            ? paint.green('PASS')
            : paint.red(c.verdict);
      lines.push(
        `  ${i + 1}. [${verdict}] ${c.text}`,
        ...(c.evidence === undefined ? [] : [paint.dim(`       ${c.evidence}`)]),
      );
    });
  }
  if (page.verdict !== undefined) {
    lines.push('', paint.bold(`Reviewer (${page.verdict.cli}): ${page.verdict.overall}`));
    if (page.verdict.summary !== undefined) lines.push(...indent(page.verdict.summary));
    for (const f of page.findings) lines.push(`  - ${f.severity} ${f.place}: ${f.finding}`);
  }
  const candidates = candidateLines(item);
  if (candidates.length > 0)
    lines.push('', paint.bold(candidates[0] ?? ''), ...candidates.slice(1));
  if (item.question !== undefined) lines.push('', paint.bold('It asks'), ...indent(item.question));
  for (const [title, text] of [
    ['Failing gate', page.gateFailure],
    ['Landing refused', page.landFailure],
    ['Checks failed', page.checksFailure],
  ] as const)
    if (text !== undefined) lines.push('', paint.bold(title), ...indent(text).map(paint.red));
  if (page.finalMessage !== undefined)
    lines.push('', paint.bold("The agent's last words"), ...indent(page.finalMessage));
  lines.push('', ...diffLines(page, paint));
  lines.push(
    '',
    page.decisions.length === 0
      ? `No decision applies to a ${item.status} item.`
      : `Decide: ${page.decisions.map((verb) => DECIDE_WITH[verb](item.id)).join(' · ')}`,
  );
  return lines;
}

function diffLines(page: ReviewPage, paint: Paint): string[] {
  const diff = page.diff;
  if (diff === undefined) return [paint.bold('Changes'), '  not in git mode: no branch to show'];
  if (diff.error !== undefined)
    return [paint.bold('Changes'), `  the diff cannot be read: ${diff.error}`];
  if (diff.files.length === 0)
    return [paint.bold('Changes'), '  no changes: its branch changed nothing'];
  const added = diff.files.reduce((s, f) => s + f.added, 0);
  const deleted = diff.files.reduce((s, f) => s + f.deleted, 0);
  const lines = [
    paint.bold(
      `Changes${diff.landed ? ' (what its landing brought)' : ''}: ${plural(diff.files.length, 'file')} +${added} −${deleted}`,
    ),
    ...diff.files.map((f) => `  ${f.path} +${f.added} −${f.deleted}`),
  ];
  for (const file of diff.files) {
    if (file.text === undefined) {
      lines.push(
        '',
        paint.dim(
          `${file.path}: not shown (the diff is long; ralph diff ${page.item.id} has it all)`,
        ),
      );
      continue;
    }
    lines.push('');
    for (const line of file.text.replace(/\n$/, '').split('\n'))
      lines.push(
        line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git')
          ? paint.bold(line)
          : line.startsWith('+')
            ? paint.green(line)
            : line.startsWith('-')
              ? paint.red(line)
              : line.startsWith('@@')
                ? paint.cyan(line)
                : line,
      );
    if (file.cut === true) lines.push(paint.dim('… (cut: ralph diff has it all)'));
  }
  return lines;
}

function indent(text: string): string[] {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `  ${line}`);
}

/** The command a person decides with, for each decision the page allows. */
const DECIDE_WITH: Record<DecisionVerb, (id: string) => string> = {
  accept: (id) => `ralph accept ${id}`,
  reject: (id) => `ralph reject ${id} --note "…" [--cancel]`,
  defer: (id) => `ralph defer ${id} --until 2d`,
};
