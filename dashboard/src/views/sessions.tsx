import { useEffect, useState } from 'preact/hooks';
import { get, type SessionEntry } from '../api.js';
import { formatDuration, money, when } from '../format.js';
import { useLive } from '../live.js';

const PAGE = 50;

interface Page {
  total: number;
  sessions: SessionEntry[];
}

/** A page of sessions, each linked to its transcript. */
function SessionTable({ sessions }: { sessions: SessionEntry[] }) {
  return (
    <table class="sessions">
      <thead>
        <tr>
          <th>started</th>
          <th>item</th>
          <th>outcome</th>
          <th>time</th>
          <th>turns</th>
          <th>tools</th>
          <th>cost</th>
          <th>cli</th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => (
          <tr key={s.sessionId}>
            <td>
              <a href={`#/sessions/${s.sessionId}`}>{when(s.startedAt)}</a>
            </td>
            <td>{s.itemId}</td>
            <td class={s.outcome === 'success' ? 'ok' : 'bad'} title={s.message}>
              {s.outcome}
            </td>
            <td>{s.durationMs === undefined ? '-' : formatDuration(s.durationMs / 1000)}</td>
            <td>{s.turns ?? '-'}</td>
            <td>{s.toolCalls}</td>
            <td>{money(s.costUsd, 4, s.costEstimated)}</td>
            <td
              title={s.fallbackFrom === undefined ? undefined : `a fallback for ${s.fallbackFrom}`}
            >
              {s.cli}
              {s.fallbackFrom === undefined ? '' : ` (for ${s.fallbackFrom})`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every session, newest first, a page at a time (the index may hold tens of thousands). */
export function Sessions() {
  const [filters, setFilters] = useState({ item: '', status: '', since: '' });
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Page>();
  const [error, setError] = useState<string>();
  const ended = useLive().log.filter((e) => e.event === 'session_ended').length;
  useEffect(() => {
    const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    for (const [key, value] of Object.entries(filters)) if (value !== '') query.set(key, value);
    get<Page>(`/sessions?${query}`).then(
      (p) => {
        setPage(p);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  }, [filters, offset, ended]);
  const field = (name: keyof typeof filters, placeholder: string) => (
    <input
      name={name}
      placeholder={placeholder}
      value={filters[name]}
      onChange={(e) => {
        setOffset(0);
        setFilters({ ...filters, [name]: e.currentTarget.value });
      }}
    />
  );
  return (
    <section>
      <div class="filters">
        {field('item', 'item id')}
        {field('status', 'status or outcome')}
        {field('since', 'since (24h, 7d, a time)')}
      </div>
      {error && <div class="error-box">{error}</div>}
      {page && (
        <>
          <SessionTable sessions={page.sessions} />
          <div class="pager">
            <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              newer
            </button>
            <span>
              {page.total === 0
                ? 'no sessions'
                : `${offset + 1}–${Math.min(offset + PAGE, page.total)} of ${page.total}`}
            </span>
            <button disabled={offset + PAGE >= page.total} onClick={() => setOffset(offset + PAGE)}>
              older
            </button>
          </div>
        </>
      )}
    </section>
  );
}
