import { useEffect, useState } from 'preact/hooks';
import type { Health, ShownEvent } from './api.js';

/** A runner log entry as `/events` sends it. */
export interface RunnerEntry {
  time: string;
  level: string;
  event: string;
  [field: string]: unknown;
}

/** A session followed live: its events as they came. */
export interface LiveSession {
  id: string;
  item: string;
  events: ShownEvent[];
  ended: boolean;
  /** When its agent last wrote (the browser's clock): its idle time is counted from here. */
  lastEventAt: number;
}

/** What the dashboard knows live, from `/events` alone (no polling). */
export interface LiveState {
  connected: boolean;
  /**
   * When the server stopped answering (the browser's clock): what the page shows is as it was
   * then, and nothing can be changed until it answers again.
   */
  disconnectedSince?: number;
  health?: Health;
  /** The running sessions (several with `--workers`) and the last one that ended, oldest first. */
  sessions: LiveSession[];
  /** The latest runner entries, newest last. */
  log: RunnerEntry[];
}

const LOG_KEPT = 200;
/** A session's events kept for the live view; its whole transcript is on its own page. */
const EVENTS_KEPT = 2000;

let state: LiveState = { connected: false, log: [], sessions: [] };
const listeners = new Set<(s: LiveState) => void>();

function update(change: Partial<LiveState>): void {
  state = { ...state, ...change };
  for (const listener of listeners) listener(state);
}

/**
 * Opens the one event stream of the page. The browser reconnects by itself and sends the
 * last id it saw (`Last-Event-ID`): the server replays what was missed from its files.
 */
let source: EventSource | undefined;

export function connect(): void {
  source?.close();
  source = new EventSource('/events');
  source.onopen = () => update({ connected: true, disconnectedSince: undefined });
  source.onerror = () => {
    update({ connected: false, disconnectedSince: state.disconnectedSince ?? Date.now() });
    // A stream the browser gave up on (an error status) is opened again after a while.
    if (source?.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  };
  source.addEventListener('status', (e) =>
    update({ health: JSON.parse((e as MessageEvent<string>).data) as Health }),
  );
  source.addEventListener('runner', (e) => {
    const entry = JSON.parse((e as MessageEvent<string>).data) as RunnerEntry;
    const log = [...state.log.slice(-(LOG_KEPT - 1)), entry];
    if (entry.event === 'session_started')
      update({
        log,
        sessions: [...state.sessions, fresh(String(entry.session), String(entry.item))],
      });
    else if (entry.event === 'session_ended')
      update({
        log,
        sessions: settled(
          state.sessions.map((s) => (s.id === entry.session ? { ...s, ended: true } : s)),
        ),
      });
    else update({ log });
  });
  source.addEventListener('stream', (e) => {
    const event = JSON.parse((e as MessageEvent<string>).data) as ShownEvent;
    const id = String(event.session);
    const known = state.sessions.some((s) => s.id === id);
    const sessions = known ? state.sessions : [...state.sessions, fresh(id, String(event.item))];
    update({
      sessions: sessions.map((s) =>
        s.id === id
          ? {
              ...s,
              events: [...s.events.slice(-(EVENTS_KEPT - 1)), event],
              lastEventAt: Date.now(),
            }
          : s,
      ),
    });
  });
}

function fresh(id: string, item: string): LiveSession {
  return { id, item, events: [], ended: false, lastEventAt: Date.now() };
}

/** The sessions still running, and the last one that ended (what the page shows when idle). */
function settled(sessions: LiveSession[]): LiveSession[] {
  const lastEnded = sessions.filter((s) => s.ended).at(-1);
  return sessions.filter((s) => !s.ended || s === lastEnded);
}

/** The live state in a component, re-rendered as it changes. */
export function useLive(): LiveState {
  const [value, setValue] = useState(state);
  useEffect(() => {
    listeners.add(setValue);
    return () => void listeners.delete(setValue);
  }, []);
  return value;
}

/**
 * Re-renders every `ms` (clocks on the page: elapsed and idle time). Disconnected, the clocks
 * stop at the moment the server was last heard: nothing is known to run since.
 */
export function useTick(ms: number): number {
  const [now, setNow] = useState(Date.now());
  const { disconnectedSince } = useLive();
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return disconnectedSince ?? now;
}
