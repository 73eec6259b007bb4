import type { Report } from '../api.js';
import { when } from '../format.js';

/** Past this many imported items the list is folded: the report's tables stay in view. */
const UNFOLDED = 10;

/** The imported items of the span: where each came from (its issue linked), where it stands. */
export function ImportedSummary({ imported }: { imported: Report['imported'] }) {
  if (imported === undefined) return null;
  const byStatus = new Map<string, number>();
  for (const i of imported) byStatus.set(i.status, (byStatus.get(i.status) ?? 0) + 1);
  const counts = [...byStatus].map(([status, n]) => `${n} ${status}`).join(', ');
  return (
    <details class="imported" id="imported" open={imported.length <= UNFOLDED}>
      <summary>
        <b>Imported</b> · {imported.length} item{imported.length === 1 ? '' : 's'}
        <span class="dim"> · {counts}</span>
      </summary>
      <ul class="failures">
        {imported.map((i) => (
          <li key={i.itemId}>
            <a href={`#/items/${encodeURIComponent(i.itemId)}`}>{i.itemId}</a>{' '}
            <span class="dim">{i.status}</span> ·{' '}
            {i.url === undefined ? (
              i.source
            ) : (
              <a href={i.url} target="_blank" rel="noopener noreferrer">
                {i.source}
              </a>
            )}
            {i.writtenBackAt !== undefined && <span class="dim"> · written back</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** What the night told people: counts, and the latest messages with each target's delivery. */
export function NotificationsSummary({
  notifications,
}: {
  notifications: Report['notifications'];
}) {
  if (notifications === undefined) return null;
  const byEvent = Object.entries(notifications.byEvent)
    .map(([event, n]) => `${event.replaceAll('_', ' ')} ${n}`)
    .join(', ');
  return (
    <div class="notifications" id="notifications">
      <b>Notifications</b> · {notifications.sent} sent
      {notifications.waiting > 0 && <span class="warn"> · {notifications.waiting} waiting</span>}
      {notifications.givenUp > 0 && <span class="bad"> · {notifications.givenUp} given up</span>}
      <span class="dim"> · {byEvent}</span>
      <ul class="failures">
        {notifications.latest
          .slice(-10)
          .reverse()
          .map((m) => (
            <li key={`${m.at}-${m.title}`}>
              <span class="dim">{when(m.at)}</span> {m.title}
              <div class="dim">
                {m.targets.map((t, n) => (
                  <span key={t.target}>
                    {n > 0 && ' · '}
                    <span class={t.sentAt === undefined ? 'bad' : 'ok'}>
                      {t.target}{' '}
                      {t.sentAt !== undefined
                        ? 'sent'
                        : `not sent: ${t.error ?? 'not tried yet'}${t.retryAt === undefined ? '' : `, again ${when(t.retryAt)}`}`}
                    </span>
                  </span>
                ))}
              </div>
            </li>
          ))}
      </ul>
    </div>
  );
}
