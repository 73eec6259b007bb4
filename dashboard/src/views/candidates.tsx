import type { ReviewPage } from '../api.js';
import { changesText } from '../../../src/lib/text.js';
import { formatDuration, money } from '../format.js';

type Item = ReviewPage['item'];

/**
 * An item's candidates side by side: each one's agent, cost, time, change, how it ended (out with why, passed,
 * picked) and the judge's verdict on each criterion; the gate output of each that is out; then the judge, its ranking and reason, and
 * the labels it knew them by (its reason speaks of those).
 */
export function Candidates({ item }: { item: Item }) {
  const roster = item.roster ?? [];
  if (roster.length === 0) return null;
  const { judgement } = item;
  const criteria = item.criteria ?? [];
  return (
    <>
      <h3>Candidates</h3>
      <div class="candidates-scroll">
        <table class="candidates">
          <thead>
            <tr>
              <th></th>
              <th>agent</th>
              <th>cost</th>
              <th>time</th>
              <th>change</th>
              <th>end</th>
              {criteria.map((_, i) => (
                <th key={i} title={criteria[i]}>
                  {i + 1}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {roster.map((entry) => {
              const picked = judgement?.picked === entry.letter;
              const verdicts = judgement?.criteria?.[entry.letter] ?? [];
              return (
                <tr
                  key={entry.letter}
                  class={picked ? 'picked' : entry.out === undefined ? '' : 'out'}
                >
                  <td>{entry.letter}</td>
                  <td>
                    {entry.cli}
                    {entry.model === undefined ? '' : ` ${entry.model}`}
                  </td>
                  <td>{entry.costUsd === undefined ? '' : money(entry.costUsd)}</td>
                  <td>{entry.seconds === undefined ? '' : formatDuration(entry.seconds)}</td>
                  <td>{entry.changes === undefined ? '' : changesText(entry.changes)}</td>
                  <td class={entry.out === undefined ? 'end' : 'end bad'} title={entry.out}>
                    {entry.out !== undefined
                      ? `out: ${entry.out.split('\n')[0] ?? ''}`
                      : entry.head === undefined
                        ? 'running'
                        : picked
                          ? `picked (${entry.head.slice(0, 12)})`
                          : `passed (${entry.head.slice(0, 12)})`}
                  </td>
                  {criteria.map((_, i) => {
                    const verdict = verdicts.find((v) => v.id === i + 1);
                    return (
                      <td key={i} title={verdict?.evidence}>
                        {verdict !== undefined && (
                          <span class={`verdict ${verdict.verdict.toLowerCase()}`}>
                            {verdict.verdict}
                          </span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {roster
        .filter((entry) => entry.out?.includes('\n') === true)
        .map((entry) => (
          <details key={entry.letter} class="candidate-out">
            <summary>
              {entry.letter}: {entry.out?.split('\n')[0]}
            </summary>
            <pre class="log">{entry.out?.split('\n').slice(1).join('\n')}</pre>
          </details>
        ))}
      {judgement !== undefined && (
        <p class="judgement">
          {judgement.failure !== undefined ? (
            <span class="bad">
              Judge {judgement.cli ?? ''}: {judgement.failure}
            </span>
          ) : (
            <>
              Judge {judgement.cli ?? 'its gates'}
              {judgement.session === undefined ? '' : ` (${money(judgement.costUsd)})`}, ranked{' '}
              {(judgement.ranking ?? judgement.shown).join(', ')}: {judgement.reason ?? ''}
              {judgement.session !== undefined && (
                <span class="dim">
                  {' '}
                  (it knew{' '}
                  {judgement.shown
                    .map((letter, i) => `${letter} as ${String.fromCharCode(65 + i)}`)
                    .join(', ')}
                  )
                </span>
              )}
            </>
          )}
        </p>
      )}
    </>
  );
}
