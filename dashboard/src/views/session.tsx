import { useEffect, useState } from 'preact/hooks';
import { get, type StreamEvent } from '../api.js';
import { money, when } from '../format.js';
import { Transcript } from '../transcript.js';

interface Record {
  sessionId: string;
  itemId: string;
  itemTitle: string;
  attempt: number;
  status: string;
  startedAt: string;
  /** The agent CLI that ran it. */
  cli: string;
  outcome?: { kind: string; message: string };
  result?: { costUsd?: number; costEstimated?: boolean; numTurns?: number };
}

interface EventsPage {
  events: StreamEvent[];
  next: number;
  done: boolean;
}

/** One session as a readable transcript, read page by page from its archive. */
export function Session({ id }: { id: string }) {
  const [record, setRecord] = useState<Record>();
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const [next, setNext] = useState<number | undefined>(0);
  const [error, setError] = useState<string>();
  const more = (after: number) =>
    get<EventsPage>(`/sessions/${id}/events?after=${after}`).then(
      (page) => {
        setEvents((before) => (after === 0 ? page.events : [...before, ...page.events]));
        setNext(page.done || page.events.length === 0 ? undefined : page.next);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    get<Record>(`/sessions/${id}`).then(setRecord, (e: Error) => setError(e.message));
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
