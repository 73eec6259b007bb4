import type { Report } from '../api.js';
import { money } from '../format.js';
import { statusIs } from '../../../src/queue/item-status.js';

type Landing = NonNullable<Report['landing']>;

/**
 * What the landings came to: landed, waiting, refused (each with why), and what a landed
 * change cost, every attempt and every item that never landed counted in.
 */
export function LandingSummary({ landing }: { landing: Landing | undefined }) {
  if (landing === undefined) return null;
  const spent = landing.landedCostUsd + landing.otherCostUsd;
  return (
    <div class="landing-summary">
      <div>
        <b>Landing</b> · <span class="ok">{landing.landed} landed</span>
        {landing.waiting > 0 ? ` · ${landing.waiting} waiting to land` : ''} ·{' '}
        <span class={landing.notLanded.length > 0 ? 'bad' : ''}>
          {landing.notLanded.length} not landed
        </span>{' '}
        ·{' '}
        {landing.costPerLandedUsd === undefined
          ? `nothing landed yet (${money(spent, 2, landing.costEstimated)} spent)`
          : `${money(landing.costPerLandedUsd, 2, landing.costEstimated)} per landed item (${money(landing.otherCostUsd, 2, landing.costEstimated)} of ${money(spent, 2, landing.costEstimated)} on items not landed)`}
      </div>
      {landing.notLanded.length > 0 && (
        <ul class="failures">
          {landing.notLanded.map((n) => (
            <li key={n.itemId}>
              <a href={`#/items/${n.itemId}`}>{n.itemId}</a>{' '}
              <span class={statusIs(n.status, 'failure') ? 'bad' : 'warn'}>
                {statusIs(n.status, 'failure') ? 'failed' : 'back with its agent'}
              </span>
              : {n.error}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
