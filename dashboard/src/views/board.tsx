import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post, remove, type Item, type Items } from '../api.js';
import { bulkStatusesFor } from '../../../src/queue/lifecycle.js';
import { holderOf, statusIs } from '../../../src/queue/item-status.js';
import { pullRequestName } from '../../../src/queue/pull-request-name.js';
import { money } from '../format.js';
import { useLive } from '../live.js';
import { NightSummary, useNight } from './night.js';

const COLUMNS = [
  'pending',
  'preparing',
  'running',
  'reviewing',
  'landing',
  'awaiting_checks',
  'awaiting_merge',
  'deciding',
  'needs_input',
  'parked',
  'interrupted',
  'failed',
  'done',
  'cancelled',
] as const;
/** Shown only while they hold an item: a night without landing never sees them. */
const OCCASIONAL = new Set<string>([
  'preparing',
  'reviewing',
  'landing',
  'awaiting_checks',
  'awaiting_merge',
  'deciding',
  'needs_input',
  'parked',
]);
/** A column's heading, where its status's name is too long for it. */
const HEADINGS: Record<string, string> = {
  preparing: 'setup',
  awaiting_checks: 'checks',
  awaiting_merge: 'to merge',
  needs_input: 'needs you',
};
/** Outcomes shown as good news. */
const GOOD_OUTCOMES = new Set(['success', 'merged', 'ready_to_merge']);
/** Cards a column shows before "more": a queue of a thousand items stays light. */
const PAGE = 50;

/** What `ralph retry` and `ralph cancel` act on, as the queue says. */
const RETRYABLE = new Set<string>(bulkStatusesFor('retried'));
const CANCELLABLE = new Set<string>(bulkStatusesFor('cancelled'));

function Card({
  item,
  maxAttempts,
  readOnly,
  off,
  act,
  lastWords,
}: {
  item: Item;
  /** A failed item's agent's last words, when this night's summary has them. */
  lastWords?: string;
  maxAttempts: number;
  readOnly: boolean;
  /** Disconnected from the server: nothing can be changed. */
  off: boolean;
  act: (f: () => Promise<unknown>) => void;
}) {
  const failed = statusIs(item.status, 'failure');
  const inSession = holderOf(item.status) === 'worker';
  const note = statusIs(item.status, 'asksPerson')
    ? `asks: ${item.question ?? ''}`
    : (item.waiting ?? (failed ? (lastWords ?? item.lastError) : undefined));
  return (
    <div class="card" data-item={item.id}>
      <div class="card-head">
        <span class="id">{item.id}</span>
        <span class="tries">
          {item.attempts}/{item.maxAttempts ?? maxAttempts} tries · {money(item.costUsd)}
        </span>
      </div>
      <a class="title" href={`#/items/${item.id}`}>
        {item.title}
      </a>
      {item.lastOutcome && (
        <div
          class={`outcome ${GOOD_OUTCOMES.has(item.lastOutcome) ? 'ok' : item.lastOutcome === 'needs_input' ? 'warn' : 'bad'}`}
        >
          {item.lastOutcome}
        </div>
      )}
      {item.pullRequest !== undefined && (
        <div class="note" title={item.checks}>
          <a href={item.pullRequest.url} target="_blank" rel="noopener noreferrer">
            {pullRequestName(item.pullRequest, 'short')}
          </a>
          {item.mergedAt === undefined && item.checks !== undefined ? ` · ${item.checks}` : ''}
        </div>
      )}
      {note && (
        <div class={failed ? 'note why' : 'note'} title={note}>
          {note.split('\n')[0]}
        </div>
      )}
      {item.landedCommit !== undefined && (
        <div class="note landed" title={item.landedCommit}>
          landed on {item.landedOn} at {item.landedCommit.slice(0, 12)}
        </div>
      )}
      {failed && item.sessions.length > 0 && (
        <a class="sessions-link" href={`#/sessions/${item.sessions.at(-1) ?? ''}`}>
          last transcript
        </a>
      )}
      {!readOnly && (
        <div class="actions">
          {RETRYABLE.has(item.status) && (
            <button disabled={off} onClick={() => act(() => post(`/items/${item.id}/retry`))}>
              retry
            </button>
          )}
          {CANCELLABLE.has(item.status) && (
            <button disabled={off} onClick={() => act(() => post(`/items/${item.id}/cancel`))}>
              cancel
            </button>
          )}
          {inSession && (
            <button
              title="end this item's session alone; it is parked (retry puts it back), its attempt given back"
              disabled={off}
              onClick={() => act(() => post(`/items/${item.id}/stop`))}
            >
              stop
            </button>
          )}
          {!inSession && (
            <button
              class="danger"
              disabled={off}
              onClick={() =>
                confirm(`Remove ${item.id} from the queue?`) &&
                act(() => remove(`/items/${item.id}`))
              }
            >
              remove
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function AddForm({ act, off }: { act: (f: () => Promise<unknown>) => void; off: boolean }) {
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [priority, setPriority] = useState('0');
  return (
    <form
      class="add-item"
      onSubmit={(e) => {
        e.preventDefault();
        act(async () => {
          await post('/items', {
            title,
            body: body === '' ? undefined : body,
            priority: Number(priority),
          });
          setTitle('');
          setBody('');
        });
      }}
    >
      <input
        name="title"
        placeholder="Title of a new item"
        value={title}
        onInput={(e) => setTitle(e.currentTarget.value)}
        required
      />
      <textarea
        name="body"
        placeholder="Task text (optional)"
        value={body}
        onInput={(e) => setBody(e.currentTarget.value)}
      />
      <label>
        priority{' '}
        <input
          name="priority"
          type="number"
          value={priority}
          onInput={(e) => setPriority(e.currentTarget.value)}
        />
      </label>
      <button type="submit" disabled={off}>
        Add
      </button>
    </form>
  );
}

/** The queue as a board by status; it reloads when the queue file's version moves. */
export function Board() {
  const { health, disconnectedSince } = useLive();
  const off = disconnectedSince !== undefined;
  const night = useNight();
  const lastWords = new Map(
    // Oldest first, so that an item's newest failure is the one kept.
    [...(night?.failures ?? [])]
      .reverse()
      .filter((f) => f.lastWords)
      .map((f) => [f.itemId, f.lastWords]),
  );
  const [queue, setQueue] = useState<Items>({ items: [], maxAttempts: 0 });
  const [error, setError] = useState<string>();
  const [shown, setShown] = useState<Record<string, number>>({});
  const version = health?.queueVersion;
  const load = () => get<Items>('/items').then(setQueue, (e: Error) => setError(e.message));
  useEffect(() => void load(), [version]);
  const act = (f: () => Promise<unknown>) =>
    void f().then(
      () => {
        setError(undefined);
        return load();
      },
      (e: unknown) => setError(e instanceof ApiError ? e.message : String(e)),
    );
  const readOnly = health?.readOnly ?? true;
  return (
    <section>
      <NightSummary night={night} />
      {!readOnly && <AddForm act={act} off={off} />}
      {error && <div class="error-box">{error}</div>}
      {queue.items.length === 0 && (
        <p class="dim">The queue is empty: add an item here, or with ralph add.</p>
      )}
      <div class="board">
        {COLUMNS.map((status) => {
          const column = queue.items.filter((i) => i.status === status);
          if (column.length === 0 && OCCASIONAL.has(status)) return null;
          const limit = shown[status] ?? PAGE;
          return (
            <div class="column" data-status={status} key={status}>
              <h3>
                {HEADINGS[status] ?? status} <span class="count">{column.length}</span>
              </h3>
              {column.slice(0, limit).map((item) => (
                <Card
                  key={item.id}
                  item={item}
                  maxAttempts={queue.maxAttempts}
                  readOnly={readOnly}
                  off={off}
                  act={act}
                  lastWords={lastWords.get(item.id)}
                />
              ))}
              {column.length > limit && (
                <button class="link" onClick={() => setShown({ ...shown, [status]: limit + PAGE })}>
                  {column.length - limit} more
                </button>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
