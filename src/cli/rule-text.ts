import type { Rule } from '../lessons/state.js';
import type { RuleRow } from '../workspace/rules-report.js';
import type { RulePage } from '../workspace/rule-page.js';
import { plural } from '../lib/text.js';
import type { Paint } from './review-text.js';

// Rules as a terminal shows them: those proposed in the inbox, a rule's page with its evidence,
// and `ralph rules`.

const KIND_WORDS: Readonly<Record<Rule['kind'], string>> = {
  follow: 'a rule to follow',
  dismiss: 'a finding not to raise',
};

const scopeOf = (rule: Pick<Rule, 'scope'>) =>
  rule.scope.length === 0 ? 'the whole repository' : rule.scope.join(', ');

/** A proposed rule as one line of the inbox. */
export const ruleLine = (rule: Rule) => `${rule.id}  ${KIND_WORDS[rule.kind]}: ${rule.text}`;

/** The proposed rules under the inbox's items. */
export function proposedLines(rules: readonly Rule[], paint: Paint): string[] {
  if (rules.length === 0) return [];
  return [
    `${plural(rules.length, 'rule')} proposed from your decisions wait${rules.length === 1 ? 's' : ''} on you:`,
    '',
    ...rules.flatMap((rule) => [
      `     ${paint.bold(rule.id)}  ${rule.text}`,
      `     ${paint.dim(`${KIND_WORDS[rule.kind]} · ${scopeOf(rule)} · rests on ${rule.evidence.join(', ')}`)}`,
      '',
    ]),
    'A rule whole: ralph review <R…>. Decide: ralph rules accept <R…>, ralph rules reject <R…> --note "…".',
  ];
}

/** A rule's page: the rule, and each lesson it rests on with the changes behind it. */
export function rulePageLines(page: RulePage, paint: Paint): string[] {
  const { rule } = page;
  const lines = [
    `${paint.bold(rule.id)}  ${rule.text}`,
    `${KIND_WORDS[rule.kind]} · ${scopeOf(rule)}${rule.status === 'proposed' ? '' : ` · ${rule.status}`}${page.proposal === undefined ? '' : ` · proposed ${page.proposal.at.slice(0, 16).replace('T', ' ')} by ${page.proposal.cli} (${page.proposal.id})`}`,
    '',
    paint.bold('Evidence'),
  ];
  for (const { lesson, items } of page.evidence) {
    lines.push(
      '',
      `${paint.cyan(lesson.id)} ${lesson.kind} · ${lesson.items.join(', ')}${lesson.decisions.length === 0 ? '' : ` · decision ${lesson.decisions.join(', ')}`}`,
      ...lesson.text.split('\n').map((line) => `  ${line}`),
    );
    for (const item of items) {
      lines.push(
        `  ${paint.dim(`${item.id}${item.title === undefined ? '' : `: ${item.title}`}`)}`,
      );
      if (item.diff !== undefined)
        lines.push(...item.diff.split('\n').map((line) => `    ${paint.dim(line)}`));
    }
  }
  if (rule.decided !== undefined)
    lines.push(
      '',
      `${rule.status} by ${rule.decided.by} at ${rule.decided.at}${rule.decided.note === undefined ? '' : `: ${rule.decided.note}`}`,
    );
  return lines;
}

/** `ralph rules`: each rule a person accepted, with when, why and what it achieved. */
export function rulesLines(rows: readonly RuleRow[], paint: Paint): string[] {
  if (rows.length === 0)
    return ['No rules yet: a person accepts them from the proposals in ralph review.'];
  return rows.flatMap((row) => [
    `${paint.bold(row.id)}${row.status === 'retired' ? paint.dim(' (retired)') : row.inForce ? '' : paint.yellow(' (not in force until its change lands)')}  ${row.text}`,
    `     ${KIND_WORDS[row.kind]} · ${scopeOf(row)}${row.into === undefined ? '' : ` · in the ${row.into}`}${row.acceptedAt === undefined ? '' : ` · accepted ${row.acceptedAt.slice(0, 10)} by ${row.acceptedBy ?? '?'}`}`,
    `     ${paint.dim(`applied ${row.applied} · broken ${row.broken} · rejections before ${row.rejectionsBefore}, after ${row.rejectionsAfter} · rests on ${row.evidence.join(', ')}`)}`,
    '',
  ]);
}
