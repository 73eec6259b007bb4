import { useEffect, useState } from 'preact/hooks';
import { get, type SessionEvents, type SessionRecord, type ShownEvent } from '../api.js';
import { money, when } from '../format.js';
import { Transcript } from '../transcript.js';

/** Where the session ran, and each connection the sandbox's proxy refused it or its gates. */
function SandboxFacts({ record }: { record: SessionRecord }) {
  const blocked = record.egressBlocked ?? [];
  const count = record.egressBlockedCount ?? blocked.length;
  return (
    <div class="sandbox">
      <span class="dim">
        in a {record.sandbox?.kind} sandbox, network {record.sandbox?.network} ·{' '}
      </span>
      {count === 0 ? (
        <span class="ok">nothing refused</span>
      ) : (
        <span class="warn">
          {count} connection{count === 1 ? '' : 's'} refused
        </span>
      )}
      {blocked.length > 0 && (
        <ul class="messages">
          {blocked.map((b) => (
            <li key={`${b.at}-${b.host}-${b.port}`}>
              <code>
                {b.host}:{b.port}
              </code>{' '}
              <span class="dim">
                by the {b.by}, {when(b.at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** One session as a readable transcript, read page by page from its archive. */
export function Session({ id }: { id: string }) {
  const [record, setRecord] = useState<SessionRecord>();
  const [events, setEvents] = useState<ShownEvent[]>([]);
  const [next, setNext] = useState<number | undefined>(0);
  const [error, setError] = useState<string>();
  const more = (after: number) =>
    get<SessionEvents>(`/sessions/${id}/events?after=${after}`).then(
      (page) => {
        setEvents((before) => (after === 0 ? page.events : [...before, ...page.events]));
        setNext(page.done || page.events.length === 0 ? undefined : page.next);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    get<SessionRecord>(`/sessions/${id}`).then(setRecord, (e: Error) => setError(e.message));
    void more(0);
  }, [id]);
  return (
    <section>
      {error && <div class="error-box">{error}</div>}
      {record && (
        <div class="facts">
          <div>
            <b>{record.itemId}</b> “{record.itemTitle}” · on {record.cli} · attempt {record.attempt}{' '}
            · started {when(record.startedAt)}
          </div>
          <div class={record.outcome?.kind === 'success' ? 'ok' : 'bad'}>
            {record.outcome
              ? `${record.status} · ${record.outcome.kind}: ${record.outcome.message}`
              : `${record.status} (still running)`}
            {record.result?.costUsd !== undefined
              ? ` · ${money(record.result.costUsd, 4, record.result.costEstimated)}`
              : ''}
          </div>
          {record.fallback !== undefined && (
            <div class="warn" id="fallback">
              a fallback: on {record.cli} for {record.fallback.cli} ({record.fallback.reason}) ·{' '}
              {record.handoverChars === undefined
                ? 'nothing handed over'
                : `handed over ${record.handoverChars} characters of what the session before it did`}
            </div>
          )}
          {record.messages !== undefined && (
            <ul class="messages">
              {record.messages.map((m) => (
                <li key={m.at}>
                  <span class="dim">
                    message from {m.from}, {when(m.at)}
                    {m.live === true ? ' (while it ran)' : ''}:
                  </span>{' '}
                  {m.text}
                </li>
              ))}
            </ul>
          )}
          {record.sandbox !== undefined && <SandboxFacts record={record} />}
          <div>
            <a href={`/sessions/${id}/raw`}>raw stream-json</a>
          </div>
        </div>
      )}
      <Transcript events={events} />
      {next !== undefined && (
        <button class="link" onClick={() => void more(next)}>
          load more
        </button>
      )}
    </section>
  );
}
