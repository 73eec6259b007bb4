import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, type Diff, type ItemDetail, type SessionEntry } from '../api.js';
import { plural } from '../../../src/lib/text.js';
import { sourceText } from '../../../src/queue/source-text.js';
import { pullRequestName } from '../../../src/queue/pull-request-name.js';
import { formatDuration, money, when } from '../format.js';
import { MessageBox } from './message-box.js';
import { Candidates } from './candidates.js';
import { holderOf, statusIs } from '../../../src/queue/item-status.js';

/** The gates' log of one session, fetched when asked for. */
function GateLog({ session }: { session: string }) {
  const [text, setText] = useState<string>();
  if (text !== undefined) return <pre class="log">{text}</pre>;
  return (
    <button
      class="link"
      onClick={() =>
        void fetch(`/sessions/${session}/gates`).then(async (r) =>
          setText(r.ok ? await r.text() : 'this session ran no gates'),
        )
      }
    >
      gate log
    </button>
  );
}

/**
 * One item as a person looks into it: its task, dependencies and limits, every attempt (when,
 * how long, how it ended, its transcript and gate log) and, in git mode, its branch's diff.
 */
export function ItemPage({ id }: { id: string }) {
  const [item, setItem] = useState<ItemDetail>();
  const [sessions, setSessions] = useState<SessionEntry[]>([]);
  const [diff, setDiff] = useState<Diff>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const fail = (e: unknown) => setError(e instanceof ApiError ? e.message : String(e));
    get<ItemDetail>(`/items/${encodeURIComponent(id)}`).then(setItem, fail);
    get<{ sessions: SessionEntry[] }>(`/sessions?item=${encodeURIComponent(id)}&limit=1000`).then(
      (page) => setSessions(page.sessions),
      fail,
    );
    get<Diff>(`/items/${encodeURIComponent(id)}/diff`).then(setDiff, () => undefined);
  }, [id]);
  if (error !== undefined) return <div class="error-box">{error}</div>;
  if (item === undefined) return <p class="dim">loading…</p>;
  return (
    <section class="item-page" id="item-page">
      <ItemFacts item={item} />
      <h3>Task</h3>
      <pre class="task">
        {item.body ?? (item.bodyFile ? `(from ${item.bodyFile})` : item.title)}
      </pre>
      {item.criteria !== undefined && item.criteria.length > 0 && <Criteria item={item} />}
      <Review item={item} />
      <Candidates item={item} />
      <Environment item={item} />
      <h3>Attempts</h3>
      <Attempts sessions={sessions} />
      {diff?.branch && <BranchDiff item={item} diff={diff} />}
    </section>
  );
}

/** What the item is, where it stands, what it came from and what it went to. */
function ItemFacts({ item }: { item: ItemDetail }) {
  const limits = [
    item.maxTurns === undefined ? undefined : `${item.maxTurns} turns`,
    item.maxBudgetUsd === undefined ? undefined : `${money(item.maxBudgetUsd)} a session`,
    item.timeout === undefined ? undefined : `${formatDuration(item.timeout)} a session`,
    item.maxAttempts === undefined ? undefined : plural(item.maxAttempts, 'attempt'),
  ].filter((l) => l !== undefined);
  return (
    <div class="facts">
      <div>
        <b>{item.id}</b> “{item.title}” · <span>{item.status}</span>
        {item.lastOutcome ? ` · ${item.lastOutcome}` : ''} · {plural(item.attempts, 'attempt')} ·{' '}
        {money(item.costUsd, 4)}
      </div>
      {item.lastError && statusIs(item.status, 'failure') && (
        <div class="bad">{item.lastError}</div>
      )}
      {item.landedCommit !== undefined && (
        <div class="ok">
          landed on {item.landedOn} at {item.landedCommit.slice(0, 12)}
          {item.landedAt ? `, ${when(item.landedAt)}` : ''}
        </div>
      )}
      {holderOf(item.status) === 'lander' && <div class="dim">waiting to land</div>}
      <SourceLine item={item} />
      <PullRequestLine item={item} />
      <Messages item={item} />
      {statusIs(item.status, 'takesMessages') && (
        <MessageBox itemId={item.id} asking={item.question} />
      )}
      {holderOf(item.status) === 'checks' && item.pullRequest === undefined && (
        <div class="dim">pushing its branch to open its pull request</div>
      )}
      <div class="dim">
        {item.cli ? `on ${item.cli} · ` : ''}
        {item.agent ? `persona ${item.agent} · ` : ''}
        {item.workDir ? `in ${item.workDir} · ` : ''}
        {limits.length > 0 ? `limits: ${limits.join(', ')} · ` : ''}
        added {when(item.createdAt)}
        {item.finishedAt ? ` · finished ${when(item.finishedAt)}` : ''}
      </div>
      {item.dependsOn.length > 0 && (
        <div>
          depends on{' '}
          {item.dependsOn.map((d) => (
            <a key={d} href={`#/items/${d}`}>
              {d}{' '}
            </a>
          ))}
        </div>
      )}
    </div>
  );
}

/** What must hold for the item to be done, each with its reviewer's verdict and evidence. */
function Criteria({ item }: { item: ItemDetail }) {
  const verdicts = new Map(item.verdict?.criteria.map((c) => [c.id, c]));
  return (
    <>
      <h3>Acceptance criteria</h3>
      <ol class="criteria">
        {(item.criteria ?? []).map((criterion, i) => {
          const verdict = verdicts.get(i + 1);
          return (
            <li key={i}>
              {verdict !== undefined && (
                <span class={`verdict ${verdict.verdict.toLowerCase()}`}>{verdict.verdict}</span>
              )}{' '}
              {criterion}
              {verdict !== undefined && <div class="evidence">{verdict.evidence}</div>}
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** Its reviewer's last verdict and findings, or why it waits unreviewed. */
/** Its worktree's environment: its setup running, ready, or why it failed (parked). */
function Environment({ item }: { item: ItemDetail }) {
  const { environment } = item;
  if (environment === undefined) return null;
  return (
    <>
      <h3>Environment</h3>
      {holderOf(item.status) === 'setup' ? (
        <div class="dim">its {environment.wanted ?? 'setup'} runs before its next session</div>
      ) : environment.failure !== undefined ? (
        <>
          <div class="bad">its setup failed: resume it once the environment is fixed</div>
          <pre class="task">{environment.failure}</pre>
        </>
      ) : (
        environment.readyAt !== undefined && <div class="ok">ready {when(environment.readyAt)}</div>
      )}
      {environment.log !== undefined && <div class="dim">log: {environment.log}</div>}
    </>
  );
}

function Review({ item }: { item: ItemDetail }) {
  const { verdict } = item;
  const reviewing = holderOf(item.status) === 'reviewer';
  if (verdict === undefined && !reviewing) return null;
  return (
    <>
      <h3>Review</h3>
      {reviewing && (
        <div class={item.unreviewed === undefined ? 'dim' : 'bad'}>
          {item.unreviewed === undefined
            ? 'waiting for its reviewer'
            : `unreviewed: ${item.unreviewed}${item.lookAgain ? ` (again ${when(item.lookAgain.at)})` : ''}`}
        </div>
      )}
      {verdict !== undefined && (
        <div id="verdict">
          <div class={verdict.overall === 'approve' ? 'ok' : 'bad'}>
            {verdict.overall === 'approve' ? 'approved' : 'changes requested'} by {verdict.cli} ·{' '}
            {money(verdict.costUsd, 4)} · {when(verdict.at)}
            {item.reviewRounds ? ` · ${plural(item.reviewRounds, 'round')} of changes` : ''}
          </div>
          {verdict.summary !== undefined && <p>{verdict.summary}</p>}
          {verdict.findings.length > 0 && (
            <ul class="findings">
              {verdict.findings.map((f, i) => (
                <li key={i}>
                  <span class={`severity ${f.severity}`}>{f.severity}</span> <code>{f.place}</code>{' '}
                  {f.finding}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}

/** Where the item came from: a plan, a prd, an issue. */
function SourceLine({ item }: { item: ItemDetail }) {
  const { source } = item;
  if (source === undefined) return null;
  return (
    <div class="source">
      from{' '}
      {source.url === undefined ? (
        sourceText(source)
      ) : (
        <a href={source.url} target="_blank" rel="noopener noreferrer">
          {sourceText(source)}
        </a>
      )}
      {source.author !== undefined && ` by @${source.author}`}
      {source.writtenBackAt !== undefined &&
        ` · its end written back ${when(source.writtenBackAt)}`}
    </div>
  );
}

/** Its pull request and how its checks stand. */
function PullRequestLine({ item }: { item: ItemDetail }) {
  const { pullRequest } = item;
  if (pullRequest === undefined) return null;
  return (
    <div class={item.mergedAt !== undefined ? 'ok' : ''}>
      {pullRequest.forge === 'gitlab' ? 'merge request' : 'pull request'}{' '}
      <a href={pullRequest.url} target="_blank" rel="noopener noreferrer">
        {pullRequestName(pullRequest, 'number')}
      </a>{' '}
      ({pullRequest.head} into {pullRequest.base}) ·{' '}
      {item.mergedAt !== undefined ? `merged ${when(item.mergedAt)}` : (item.checks ?? 'opening')}
      {item.checkRounds
        ? ` · red ${item.checkRounds} time${item.checkRounds === 1 ? '' : 's'}`
        : ''}
    </div>
  );
}

/** A person's messages to its agent, and whether each was given yet. */
function Messages({ item }: { item: ItemDetail }) {
  const { messages = [] } = item;
  if (messages.length === 0) return null;
  return (
    <ul class="messages">
      {messages.map((m) => (
        <li key={m.at}>
          <span class="dim">
            {m.from}, {when(m.at)}
            {m.session === undefined ? ' · not given yet' : ' · given'}:
          </span>{' '}
          {m.text}
        </li>
      ))}
    </ul>
  );
}

/** Every attempt, the newest first: when, how long, how it ended, what it cost, its gates. */
function Attempts({ sessions }: { sessions: SessionEntry[] }) {
  return (
    <>
      <table class="sessions attempts">
        <thead>
          <tr>
            <th>started</th>
            <th>by</th>
            <th>time</th>
            <th>outcome</th>
            <th>cost</th>
            <th>gates</th>
          </tr>
        </thead>
        <tbody>
          {[...sessions].reverse().map((s) => (
            <tr key={s.sessionId}>
              <td>
                <a href={`#/sessions/${s.sessionId}`}>{when(s.startedAt)}</a>
              </td>
              <td class={s.role === undefined ? '' : 'dim'}>
                {s.role ?? 'author'} · {s.cli}
              </td>
              <td>{s.durationMs === undefined ? '-' : formatDuration(s.durationMs / 1000)}</td>
              <td
                class={s.outcome === 'success' ? 'ok' : s.outcome === 'running' ? '' : 'bad'}
                title={s.message}
              >
                {s.outcome}
                {s.outcome === 'success' || s.message === undefined ? '' : `: ${s.message}`}
              </td>
              <td>{money(s.costUsd, 4, s.costEstimated)}</td>
              <td>{s.role === undefined ? <GateLog session={s.sessionId} /> : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {sessions.length === 0 && <p class="dim">No attempt yet.</p>}
    </>
  );
}

/** In git mode: what its branch holds against its base, or what it landed. */
function BranchDiff({ item, diff }: { item: ItemDetail; diff: Diff }) {
  return (
    <>
      <h3>
        {diff.landed === true
          ? `Landed on ${item.landedOn ?? 'its target'} at ${item.landedCommit?.slice(0, 12) ?? ''}, from ${diff.branch}`
          : `Branch ${diff.branch} against ${diff.base?.slice(0, 12) ?? ''}`}
      </h3>
      <pre class="diff" id="item-diff">
        {diff.diff === '' ? '(no change)' : diff.diff}
        {diff.truncated ? '\n… (cut: ralph diff shows it whole)' : ''}
      </pre>
    </>
  );
}
