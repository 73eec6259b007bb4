import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  get,
  post,
  type Decided,
  type Review,
  type ReviewPage,
  type ReviewRow,
} from '../api.js';
import { formatDuration, money } from '../format.js';
import { useLive } from '../live.js';
import { Candidates } from './candidates.js';
import { ProposedRules } from './rules.js';
import type { DecisionVerb } from '../../../src/queue/decision-kinds.js';

// The Review view: the morning's inbox, most at risk first, driven from the keyboard (j/k move,
// enter open, a accept, r reject with a note, d defer) or by touch, and one item's review page.

/** A decision that asks for more; `openedAt`: its item's page was open since then (ms). */
type Asking = { kind: 'reject' | 'defer'; id: string; openedAt?: number } | undefined;

/** The time an item's page has been open, for the report of the person's time per decision. */
const timed = (openedAt: number | undefined) =>
  openedAt === undefined ? {} : { reviewMs: Math.max(0, Math.round(Date.now() - openedAt)) };

/** How a risk score is coloured. */
const level = (score: number) => (score >= 40 ? 'high' : score >= 15 ? 'mid' : 'low');

/** What a person says with one decision, sent to the server; its answer's words, or its refusal. */
async function send(id: string, path: DecisionVerb, body: unknown = {}): Promise<string> {
  try {
    return (await post<Decided>(`/items/${encodeURIComponent(id)}/${path}`, body)).text;
  } catch (e) {
    return e instanceof ApiError ? e.message : String(e);
  }
}

/** The note of a rejection, or the date of a deferral, asked in place. */
function AskBox({
  asking,
  onDone,
}: {
  asking: NonNullable<Asking>;
  onDone: (said?: string) => void;
}) {
  const [text, setText] = useState(asking.kind === 'defer' ? '1d' : '');
  const [cancel, setCancel] = useState(false);
  const field = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const submit = async () =>
    onDone(
      asking.kind === 'reject'
        ? await send(asking.id, 'reject', {
            ...(cancel ? { cancel: true, ...(text ? { note: text } : {}) } : { note: text }),
            ...timed(asking.openedAt),
          })
        : await send(asking.id, 'defer', { until: text, ...timed(asking.openedAt) }),
    );
  return (
    <form
      class="ask-box"
      id="ask-box"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
        e.stopPropagation();
      }}
    >
      {asking.kind === 'reject' ? (
        <>
          <label for="reject-note">
            Reject {asking.id}: what was wrong (its next attempt is told)
          </label>
          <textarea
            id="reject-note"
            ref={field}
            value={text}
            rows={3}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                void submit();
              }
            }}
          />
          <label class="inline">
            <input type="checkbox" checked={cancel} onChange={() => setCancel(!cancel)} /> cancel it
            instead of putting it back in line
          </label>
        </>
      ) : (
        <>
          <label for="defer-until">Defer {asking.id} until (3d, 12h, a date)</label>
          <input
            id="defer-until"
            ref={field}
            value={text}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
          />
        </>
      )}
      <div class="actions">
        <button type="submit">{asking.kind === 'reject' ? 'Reject' : 'Defer'}</button>
        <button type="button" class="link" onClick={() => onDone()}>
          Back (Esc)
        </button>
      </div>
    </form>
  );
}

/** The box a decision asks its note or date in, and the line that says what became of it. */
function useDecisions(load: () => void) {
  const [asking, setAsking] = useState<Asking>();
  const [said, setSaid] = useState<string>();
  const askBox = asking !== undefined && (
    <AskBox
      asking={asking}
      onDone={(text) => {
        setAsking(undefined);
        if (text !== undefined) {
          setSaid(text);
          load();
        }
      }}
    />
  );
  const saidLine = said !== undefined && (
    <div class="said" id="review-said">
      {said}
    </div>
  );
  return { asking, setAsking, setSaid, askBox, saidLine };
}

/** The inbox: one row an item, its score's parts, how it came to be, and its decisions. */
export function ReviewInbox() {
  const [rows, setRows] = useState<ReviewRow[]>();
  const [rulesWaiting, setRulesWaiting] = useState(0);
  const [at, setAt] = useState(0);
  const { health } = useLive();
  const readOnly = health?.readOnly === true;
  const load = () =>
    void get<Review>('/review').then(
      (r) => {
        setRows(r.items);
        setAt((i) => Math.min(i, Math.max(0, r.items.length - 1)));
      },
      (e: unknown) => setSaid(String(e)),
    );
  useEffect(load, []);
  const { asking, setAsking, setSaid, askBox, saidLine } = useDecisions(load);
  const decide = async (row: ReviewRow, path: 'accept') => {
    setSaid(await send(row.id, path));
    load();
  };
  // Keys come faster than renders: the selection is read and moved where it is now.
  const selection = useRef(at);
  selection.current = at;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (asking !== undefined || rows === undefined || e.ctrlKey || e.metaKey || e.altKey) return;
      const row = rows[selection.current];
      const move = (to: number) => {
        selection.current = Math.min(Math.max(0, to), rows.length - 1);
        setAt(selection.current);
      };
      if (e.key === 'j' || e.key === 'ArrowDown') move(selection.current + 1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(selection.current - 1);
      else if (row && (e.key === 'Enter' || e.key === 'o')) location.hash = `#/review/${row.id}`;
      else if (row && !readOnly && e.key === 'a' && row.decisions.includes('accept'))
        void decide(row, 'accept');
      else if (row && !readOnly && e.key === 'r' && row.decisions.includes('reject'))
        setAsking({ kind: 'reject', id: row.id });
      else if (row && !readOnly && e.key === 'd' && row.decisions.includes('defer'))
        setAsking({ kind: 'defer', id: row.id });
      else return;
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });
  useEffect(
    () => document.getElementById(`review-${at}`)?.scrollIntoView({ block: 'nearest' }),
    [at],
  );
  if (rows === undefined) return <p class="dim">loading…</p>;
  return (
    <>
      <ProposedRules readOnly={readOnly} onCount={setRulesWaiting} />
      <section class="review" id="review">
        <h2>
          {rows.length === 0
            ? rulesWaiting > 0
              ? 'No item waits on you'
              : 'Nothing waits on you'
            : `${rows.length} waiting on you, most at risk first`}
        </h2>
        <p class="dim keys">j/k move · enter open · a accept · r reject · d defer</p>
        {saidLine}
        {askBox}
        <ol class="inbox">
          {rows.map((row, i) => (
            <InboxRowView
              key={row.id}
              row={row}
              index={i}
              selected={i === at}
              readOnly={readOnly}
              onSelect={() => setAt(i)}
              onAccept={() => void decide(row, 'accept')}
              onAsk={(kind) => setAsking({ kind, id: row.id })}
            />
          ))}
        </ol>
      </section>
    </>
  );
}

/** The parts of a risk score, each with what earned it. */
function Parts({ parts }: { parts: ReviewRow['parts'] }) {
  return (
    <div class="parts">
      {parts.map((p) => (
        <span class="part" key={p.name}>
          {p.name} +{p.points} <span class="dim">{p.why}</span>
        </span>
      ))}
    </div>
  );
}

/** One row of the inbox: the score, what happened, the score's parts, how, the decisions. */
function InboxRowView(props: {
  row: ReviewRow;
  index: number;
  selected: boolean;
  readOnly: boolean;
  onSelect: () => void;
  onAccept: () => void;
  onAsk: (kind: 'reject' | 'defer') => void;
}) {
  const { row, index, selected, readOnly, onSelect, onAccept, onAsk } = props;
  return (
    <li id={`review-${index}`} class={`inbox-row${selected ? ' selected' : ''}`} onClick={onSelect}>
      <span class={`risk ${level(row.score)}`} title="risk score">
        {row.score}
      </span>
      <div class="inbox-main">
        <div>
          <a href={`#/review/${row.id}`}>{row.id}</a> <span>{row.title}</span>
        </div>
        <div class={row.waits === 'decide' ? '' : 'bad'}>{row.what}</div>
        <Parts parts={row.parts} />
        {row.chain !== '' && <div class="dim chain">{row.chain}</div>}
      </div>
      {!readOnly && (
        <div class="row-actions">
          {row.waits === 'answer' && (
            <a class="button" href={`#/items/${row.id}`}>
              Answer
            </a>
          )}
          {row.decisions.includes('accept') && <button onClick={onAccept}>Accept</button>}
          {row.decisions.includes('reject') && (
            <button onClick={() => onAsk('reject')}>Reject</button>
          )}
          {row.decisions.includes('defer') && (
            <button class="link" onClick={() => onAsk('defer')}>
              Defer
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/** One diff line's class: added, removed, a hunk's head, or the file's. */
const lineClass = (line: string) =>
  line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git')
    ? 'file'
    : line.startsWith('+')
      ? 'add'
      : line.startsWith('-')
        ? 'del'
        : line.startsWith('@@')
          ? 'hunk'
          : '';

/** Everything needed to decide on one item, and the decisions it allows. */
export function ReviewItem({ id }: { id: string }) {
  const [page, setPage] = useState<ReviewPage>();
  const [error, setError] = useState<string>();
  const { health } = useLive();
  // When this item's page opened: the person's time on it goes with their decision.
  const opened = useRef({ id, at: Date.now() });
  if (opened.current.id !== id) opened.current = { id, at: Date.now() };
  const openedAt = opened.current.at;
  const load = () =>
    void get<ReviewPage>(`/items/${encodeURIComponent(id)}/review`).then(setPage, (e: unknown) =>
      setError(e instanceof ApiError ? e.message : String(e)),
    );
  useEffect(load, [id]);
  const { setAsking, setSaid, askBox, saidLine } = useDecisions(load);
  if (error !== undefined) return <div class="error-box">{error}</div>;
  if (page === undefined) return <p class="dim">loading…</p>;
  const { item, row } = page;
  const can = (d: DecisionVerb) => health?.readOnly !== true && page.decisions.includes(d);
  return (
    <section class="review-page" id="review-page">
      <p>
        <a href="#/review">← the inbox</a>
      </p>
      <h2>
        {row !== undefined && <span class={`risk ${level(row.score)}`}>{row.score}</span>} {item.id}
        : {item.title}
      </h2>
      <div class="facts">
        <div>status {item.status}</div>
        <div>
          {page.sessions} session{page.sessions === 1 ? '' : 's'}
          {page.reviews === 0
            ? ''
            : ` (${page.reviews} review${page.reviews === 1 ? '' : 's'})`} · {money(page.costUsd)} ·{' '}
          {formatDuration(Math.round(page.durationMs / 1000))}
        </div>
        {row !== undefined && <div>{row.what}</div>}
        {row !== undefined && row.chain !== '' && <div class="dim">{row.chain}</div>}
      </div>
      {row !== undefined && <Parts parts={row.parts} />}
      {saidLine}
      <div class="row-actions page-actions">
        {can('accept') && (
          <button
            id="accept"
            onClick={() =>
              void send(id, 'accept', timed(openedAt)).then((text) => {
                setSaid(text);
                load();
              })
            }
          >
            Accept
          </button>
        )}
        {can('reject') && (
          <button onClick={() => setAsking({ kind: 'reject', id, openedAt })}>Reject</button>
        )}
        {can('defer') && (
          <button class="link" onClick={() => setAsking({ kind: 'defer', id, openedAt })}>
            Defer
          </button>
        )}
      </div>
      {askBox}
      <WhatItDid page={page} />
      <Changes page={page} />
    </section>
  );
}

/** The task and its criteria, what its reviewer found, what failed, the agent's last words. */
function WhatItDid({ page }: { page: ReviewPage }) {
  const { item } = page;
  return (
    <>
      <h3>Task</h3>
      <pre class="task">{page.task}</pre>
      {page.criteria.length > 0 && (
        <>
          <h3>Criteria</h3>
          <ol class="criteria">
            {page.criteria.map((c, i) => (
              <li key={i}>
                {c.verdict !== undefined && (
                  <span class={`verdict ${c.verdict.toLowerCase()}`}>{c.verdict}</span>
                )}{' '}
                {c.text}
                {c.evidence !== undefined && <div class="evidence">{c.evidence}</div>}
              </li>
            ))}
          </ol>
        </>
      )}
      <Candidates item={item} />
      {page.verdict !== undefined && (
        <>
          <h3>
            Reviewer ({page.verdict.cli}): {page.verdict.overall}
          </h3>
          {page.verdict.summary !== undefined && <p>{page.verdict.summary}</p>}
          <ul class="findings">
            {page.findings.map((f, i) => (
              <li key={i}>
                <span class={`severity ${f.severity}`}>{f.severity}</span> <code>{f.place}</code>{' '}
                {f.finding}
              </li>
            ))}
          </ul>
        </>
      )}
      {item.question !== undefined && (
        <>
          <h3>It asks</h3>
          <pre class="task">{item.question}</pre>
        </>
      )}
      {(
        [
          ['Failing gate', page.gateFailure],
          ['Landing refused', page.landFailure],
          ['Checks failed', page.checksFailure],
        ] as const
      ).map(([title, text]) =>
        text === undefined ? null : (
          <div key={title}>
            <h3>{title}</h3>
            <pre class="task bad gate-failure">{text}</pre>
          </div>
        ),
      )}
      {page.finalMessage !== undefined && (
        <>
          <h3>The agent's last words</h3>
          <pre class="task">{page.finalMessage}</pre>
        </>
      )}
    </>
  );
}

/** The diff, a file each, collapsible; a file past what is shown is named. */
function Changes({ page }: { page: ReviewPage }) {
  const diff = page.diff;
  if (diff === undefined) return <p class="dim">Not in git mode: no branch to show.</p>;
  if (diff.error !== undefined) return <p class="bad">The diff cannot be read: {diff.error}</p>;
  if (diff.files.length === 0)
    return (
      <p class="bad" id="no-changes">
        No changes: its branch changed nothing.
      </p>
    );
  return (
    <>
      <h3>
        Changes{diff.landed ? ' (what its landing brought)' : ''}: {diff.files.length} file
        {diff.files.length === 1 ? '' : 's'}
      </h3>
      {diff.files.map((file) => (
        <details class="file-diff" key={file.path} open={diff.files.length <= 5}>
          <summary>
            <code>{file.path}</code> <span class="ok">+{file.added}</span>{' '}
            <span class="bad">−{file.deleted}</span>
          </summary>
          {file.text === undefined ? (
            <p class="dim">not shown: the diff is long (ralph diff {page.item.id} has it all)</p>
          ) : (
            <pre class="diff">
              {file.text
                .replace(/\n$/, '')
                .split('\n')
                .map((line, i) => (
                  <div key={i} class={lineClass(line)}>
                    {line || ' '}
                  </div>
                ))}
              {file.cut === true && <div class="dim">… (cut: ralph diff has it all)</div>}
            </pre>
          )}
        </details>
      ))}
    </>
  );
}
