import { plural } from '../../src/lib/text.js';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, post } from './api.js';
import { clock } from './format.js';
import { connect, useLive } from './live.js';
import { Board } from './views/board.js';
import { ItemPage } from './views/item.js';
import { Live } from './views/live.js';
import { ReportView } from './views/report.js';
import { ReviewInbox, ReviewItem } from './views/review.js';
import { Session } from './views/session.js';
import { Sessions } from './views/sessions.js';

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const onChange = () => setHash(location.hash || '#/');
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

/** Pause (now, or after the current item) and resume. */
function Controls() {
  const { health, disconnectedSince } = useLive();
  const [error, setError] = useState<string>();
  if (health === undefined || health.readOnly) return null;
  const off = disconnectedSince !== undefined;
  const act = (path: string, body: unknown = {}) =>
    void post(path, body).then(
      () => setError(undefined),
      (e: unknown) => setError(e instanceof ApiError ? e.message : String(e)),
    );
  return (
    <div class="controls">
      {health.paused ? (
        <button disabled={off} onClick={() => act('/resume')}>
          Resume
        </button>
      ) : (
        <>
          <button
            disabled={off}
            onClick={() => act('/pause', { reason: 'paused from the dashboard' })}
          >
            Pause
          </button>
          {health.runner && health.running.length > 0 && !health.pauseAfterCurrent && (
            <button
              disabled={off}
              onClick={() =>
                act('/pause', { reason: 'paused from the dashboard', afterCurrent: true })
              }
            >
              {health.running.length > 1 ? 'Pause after these items' : 'Pause after this item'}
            </button>
          )}
        </>
      )}
      {error && <span class="bad">{error}</span>}
    </div>
  );
}

/** The server stopped answering: said at the top, with how long ago and a way to try again. */
function Disconnected({ since }: { since: number }) {
  return (
    <div class="banner paused" id="disconnected-banner">
      Disconnected from ralph serve since {clock(new Date(since).toISOString())}: what this page
      shows is as it was then, and nothing can be changed. Reconnecting…{' '}
      <button onClick={connect}>Reconnect now</button>
    </div>
  );
}

function Header() {
  const { health, connected, disconnectedSince } = useLive();
  return (
    <header>
      <div class="brand">
        ralph <span class="dim">{health?.root}</span>
      </div>
      <nav>
        <a href="#/">Queue</a>
        <a href="#/review">Review</a>
        <a href="#/live">Live</a>
        <a href="#/sessions">Sessions</a>
        <a href="#/report">Report</a>
      </nav>
      <div class="state">
        <span
          class={`dot ${connected ? 'ok' : 'bad'}`}
          title={connected ? 'live' : 'reconnecting'}
        />
        {disconnectedSince !== undefined
          ? 'not connected'
          : health?.runner
            ? `runner pid ${health.runner.pid}`
            : 'no runner'}
        {health?.fleet && health.fleet.unreachable === undefined
          ? ` here · fleet: ${plural(health.fleet.runners.length, 'runner')}`
          : ''}
        {health?.readOnly ? ' · read-only' : ''}
      </div>
      <Controls />
      {disconnectedSince !== undefined && <Disconnected since={disconnectedSince} />}
      {health?.paused && (
        <div class="banner paused" id="paused-banner">
          Paused: {health.paused.reason}
        </div>
      )}
      {health?.pauseAfterCurrent && (
        <div class="banner">Pausing after the current item: {health.pauseAfterCurrent.reason}</div>
      )}
      {health?.waiting && (
        <div class="banner">
          {health.waiting.event === 'queue_unreachable'
            ? `Waiting since ${health.waiting.until} for the queue: ${health.waiting.reason}`
            : `Waiting: ${health.waiting.reason}, until ${health.waiting.until}`}
        </div>
      )}
      {health?.heldClis?.map((held) => (
        <div class="banner" key={held.cli} id={`held-${held.cli}`}>
          Held: no item starts on {held.cli}{' '}
          {held.until === undefined ? 'in this run' : `until ${held.until}`}:{' '}
          {held.reason === health.waiting?.reason ? 'the wait above' : held.reason}
        </div>
      ))}
      {health?.fleet?.unreachable !== undefined && (
        <div class="banner paused" id="queue-unreachable">
          The queue cannot be read: {health.fleet.unreachable}
        </div>
      )}
      {health?.fleet?.paused && (
        <div class="banner paused" id="fleet-paused">
          The fleet is paused by {health.fleet.paused.by}: {health.fleet.paused.reason} (ralph
          resume --fleet)
        </div>
      )}
    </header>
  );
}

function App() {
  const hash = useHash();
  const session = /^#\/sessions\/([0-9a-f-]{36})$/.exec(hash)?.[1];
  const item = /^#\/items\/([A-Za-z0-9._-]+)$/.exec(hash)?.[1];
  const reviewed = /^#\/review\/([A-Za-z0-9._-]+)$/.exec(hash)?.[1];
  const view =
    session !== undefined ? (
      <Session id={session} />
    ) : item !== undefined ? (
      <ItemPage id={item} />
    ) : reviewed !== undefined ? (
      <ReviewItem id={reviewed} />
    ) : hash === '#/review' ? (
      <ReviewInbox />
    ) : hash === '#/live' ? (
      <Live />
    ) : hash === '#/sessions' ? (
      <Sessions />
    ) : hash === '#/report' ? (
      <ReportView />
    ) : (
      <Board />
    );
  return (
    <>
      <Header />
      <main>{view}</main>
    </>
  );
}

connect();
render(<App />, document.getElementById('app') as HTMLElement);
