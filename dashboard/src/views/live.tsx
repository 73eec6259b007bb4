import { useEffect, useState } from 'preact/hooks';
import { plural } from '../../../src/lib/text.js';
import { get, type Health, type RunningSession } from '../api.js';
import { clock, formatDuration, money, since } from '../format.js';
import { useLive, useTick, type LiveSession, type RunnerEntry } from '../live.js';
import { Transcript } from '../transcript.js';
import { MessageBox } from './message-box.js';

/** One running session's facts: item, elapsed and idle time against their limits, tools, cost. */
function Facts(props: {
  running: RunningSession;
  session: LiveSession | undefined;
  now: number;
  /** Whether there are others to choose from: the card then picks the transcript shown. */
  choosable: boolean;
  selected: boolean;
  onSelect: () => void;
}) {
  const { running, session, now } = props;
  const idleSince =
    running.lastActivityAt ??
    (session === undefined ? undefined : new Date(session.lastEventAt).toISOString());
  const idleSeconds =
    idleSince === undefined ? undefined : Math.max(0, (now - Date.parse(idleSince)) / 1000);
  const idleLimit = running.limits?.idleTimeoutSeconds;
  // Counted from the stream itself: the runner writes its heartbeat only now and then.
  const assistant = (session?.events ?? []).flatMap((e) => (e.kind === 'assistant' ? [e] : []));
  const tools = assistant.flatMap((e) => e.toolUses);
  const tokensOut = assistant.reduce((sum, e) => sum + (e.usage?.outputTokens ?? 0), 0);
  return (
    <div
      class={['facts', props.choosable && 'choosable', props.selected && 'selected']
        .filter(Boolean)
        .join(' ')}
      data-session={running.sessionId}
      title={props.choosable ? 'show this session’s transcript' : undefined}
      onClick={props.onSelect}
    >
      <div>
        <b>{running.itemId}</b> “{running.itemTitle}” · session{' '}
        <a href={`#/sessions/${running.sessionId}`}>{running.sessionId}</a>
        {running.branch ? ` · branch ${running.branch}` : ''}
      </div>
      <div class="stats">
        <span>
          elapsed {since(running.startedAt, now)}
          {running.limits ? ` of ${formatDuration(running.limits.timeoutSeconds)}` : ''}
        </span>
        {running.gate === undefined ? (
          <span
            class={
              idleLimit !== undefined && idleSeconds !== undefined && idleSeconds > idleLimit * 0.8
                ? 'bad'
                : ''
            }
          >
            idle {idleSeconds === undefined ? '-' : formatDuration(idleSeconds)}
            {idleLimit === undefined ? '' : ` of ${formatDuration(idleLimit)}`}
          </span>
        ) : (
          <span>checking its work: gate “{running.gate}”</span>
        )}
        <span>
          {plural(tools.length, 'tool call')}
          {tools.length > 0 ? ` (last: ${tools.at(-1)?.name ?? ''})` : ''}
        </span>
        <span>
          {plural(assistant.length, 'assistant message')}
          {tokensOut > 0 ? ` (${plural(tokensOut, 'token')} out)` : ''}
        </span>
        <span>
          {running.costUsd === undefined
            ? 'cost not reported yet'
            : `cost so far ${money(running.costUsd, 4, running.costEstimated)}`}
          {running.limits?.maxBudgetUsd === undefined
            ? ''
            : ` (cap ${money(running.limits.maxBudgetUsd)})`}
        </span>
      </div>
    </div>
  );
}

/**
 * The running sessions as they happen (several with `--workers`): each one's facts, and the
 * transcript of the one chosen (the newest by default).
 */
export function Live() {
  const { health, sessions, log } = useLive();
  const now = useTick(1000);
  const [chosen, choose] = useState<string | undefined>(undefined);
  const running = health?.running ?? [];
  const shown =
    sessions.find((s) => s.id === chosen) ??
    sessions.find((s) => s.id === running.at(-1)?.sessionId) ??
    sessions.at(-1);
  const last = sessions.filter((s) => s.ended).at(-1);
  return (
    <section>
      {running.length === 0 && (
        <div class="facts">
          No session is running.
          {last ? ` The last one: ${last.item}, session ${last.id}.` : ''}
        </div>
      )}
      {running.map((r) => (
        <Facts
          key={r.sessionId}
          running={r}
          session={sessions.find((s) => s.id === r.sessionId)}
          now={now}
          choosable={running.length > 1}
          selected={running.length > 1 && shown?.id === r.sessionId}
          onSelect={() => choose(r.sessionId)}
        />
      ))}
      {health?.readOnly === false &&
        running
          .filter((r) => r.sessionId === shown?.id || running.length === 1)
          .map((r) => <MessageBox key={r.itemId} itemId={r.itemId} />)}
      {health?.fleet && <Fleet fleet={health.fleet} now={now} />}
      <RunnerLog entries={log} />
      {/* Last on the page: its tail is the page's end, which following keeps in view. */}
      {shown && <Transcript events={shown.events} follow />}
    </section>
  );
}

/** The runner's own entries a person looks for: its waits, backoffs, refusals and faults. */
function RunnerLog({ entries }: { entries: readonly RunnerEntry[] }) {
  // What was said before the page opened, then what the live stream brings.
  const [earlier, setEarlier] = useState<RunnerEntry[]>([]);
  useEffect(
    () =>
      void get<{ entries: RunnerEntry[] }>('/log').then(
        (r) => setEarlier(r.entries),
        () => undefined,
      ),
    [],
  );
  const seen = new Set(entries.map((e) => `${e.time} ${e.event}`));
  const shown = [...earlier.filter((e) => !seen.has(`${e.time} ${e.event}`)), ...entries]
    .filter((e) => e.level !== 'info' || NOTED.has(e.event))
    .slice(-LOG_SHOWN)
    .reverse();
  if (shown.length === 0) return null;
  return (
    <div class="runner-log" id="runner-log">
      <h3>The runner</h3>
      {shown.map((e, i) => (
        <div
          key={`${e.time}-${i}`}
          class={e.level === 'info' ? '' : e.level === 'warn' ? 'warn' : 'bad'}
        >
          <span class="dim">{clock(e.time)}</span> {e.event.replace(/_/g, ' ')}
          {typeof e.reason === 'string' ? `: ${e.reason}` : ''}
          {typeof e.item === 'string' ? ` (${e.item})` : ''}
          {typeof e.until === 'string' ? ` until ${clock(e.until)}` : ''}
        </div>
      ))}
    </div>
  );
}

/** Info entries worth a line of their own besides every warning and error. */
const NOTED = new Set(['run_started', 'run_finished', 'paused', 'resumed', 'http_action']);
const LOG_SHOWN = 30;

/** The runners of a queue shared in a database: who runs where, and what. */
function Fleet(props: { fleet: NonNullable<Health['fleet']>; now: number }) {
  const { fleet, now } = props;
  if (fleet.unreachable !== undefined) return null;
  return (
    <table id="fleet">
      <caption>
        Fleet: {plural(fleet.runners.length, 'runner')} on {fleet.queue}
      </caption>
      <thead>
        <tr>
          <th>host</th>
          <th>pid</th>
          <th>workers</th>
          <th>workspace</th>
          <th>running</th>
          <th>heartbeat</th>
        </tr>
      </thead>
      <tbody>
        {fleet.runners.map((r) => (
          <tr key={r.id}>
            <td>{r.host}</td>
            <td>{r.pid}</td>
            <td>{r.workers}</td>
            <td class="dim">{r.workspace}</td>
            <td>{r.items.length === 0 ? 'idle' : r.items.join(', ')}</td>
            <td>{formatDuration(Math.max(0, (now - Date.parse(r.heartbeatAt)) / 1000))} ago</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
