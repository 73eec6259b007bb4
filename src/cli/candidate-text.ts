import { formatDuration } from '../lib/duration.js';
import { changesText } from '../lib/text.js';
import { formatCost } from '../lib/usd.js';
import type { Item } from '../queue/item.js';

/**
 * An item's candidates side by side, as `ralph show` and `ralph review` say them: each one's CLI
 * and model, cost, time and change, how it ended (out with why and its gate's output, passed, picked) and the
 * judge's verdict of it, then the judge and its reason; or, for a candidate, whose it is.
 */
export function candidateLines(item: Item): string[] {
  const of = item.candidateOf;
  if (of !== undefined)
    return [
      `Candidate: ${of.letter} of ${of.item}${of.shareUsd === undefined ? '' : `, held to its share of its cap, ${formatCost(of.shareUsd, false)}`}`,
    ];
  const roster = item.roster ?? [];
  if (roster.length === 0) return [];
  const { judgement } = item;
  const rows = roster.map((entry) => {
    const who = `${entry.cli}${entry.model === undefined ? '' : ` ${entry.model}`}`;
    const cost = [
      entry.costUsd === undefined ? undefined : formatCost(entry.costUsd, false),
      entry.seconds === undefined ? undefined : formatDuration(entry.seconds),
      entry.changes === undefined ? undefined : changesText(entry.changes),
    ]
      .filter((part) => part !== undefined)
      .map((part, i) => (i === 0 ? ` ${part}` : `, ${part}`))
      .join('');
    const criteria = judgement?.criteria?.[entry.letter];
    const judged =
      criteria === undefined || criteria.length === 0
        ? ''
        : ` (${criteria.map((c) => `${c.id} ${c.verdict}`).join(', ')})`;
    const end =
      entry.out !== undefined
        ? `out: ${entry.out.split('\n')[0] ?? ''}`
        : entry.head === undefined
          ? 'running'
          : judgement?.picked === entry.letter
            ? `picked at ${entry.head.slice(0, 12)}`
            : `passed at ${entry.head.slice(0, 12)}`;
    // An out candidate's gate output follows its line, indented under it.
    const output = (entry.out?.split('\n') ?? []).slice(1).map((line) => `      ${line}`);
    return [`  ${entry.letter} ${who}${cost}: ${end}${judged}`, ...output];
  });
  const judge =
    judgement === undefined
      ? []
      : judgement.failure !== undefined
        ? [`Judge:    ${judgement.cli ?? 'none'}: ${judgement.failure}`]
        : [
            `Judge:    ${judgement.cli ?? 'its gates'}${judgement.session === undefined ? '' : ` (session ${judgement.session}, ${formatCost(judgement.costUsd, false)})`}, ranked ${(judgement.ranking ?? judgement.shown).join(', ')}: ${judgement.reason ?? ''}`,
            // Its reason speaks of the labels it was shown, in an order of chance.
            ...(judgement.session === undefined
              ? []
              : [
                  `          (it knew ${judgement.shown.map((letter, i) => `${letter} as ${String.fromCharCode(65 + i)}`).join(', ')})`,
                ]),
          ];
  return ['Candidates:', ...rows.flat(), ...judge];
}
