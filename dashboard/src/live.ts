import { useEffect, useState } from 'preact/hooks';
import type { Health, StreamEvent } from './api.js';

/** A runner log entry as `/events` sends it. */
export interface RunnerEntry {
  time: string;
  level: string;
  event: string;
  [field: string]: unknown;
}

/** What the dashboard knows live, from `/events` alone (no polling). */
export interface LiveState {
  connected: boolean;
  health?: Health;
  /** The running (or last) session's events, as they came. */
  session?: { id: string; item: string; events: StreamEvent[]; ended: boolean };
  /** The latest runner entries, newest last. */
  log: RunnerEntry[];
  /** When the agent last wrote (the browser's clock): its idle time is counted from here. */
  lastEventAt?: number;
}

const LOG_KEPT = 200;
/** A session's events kept for the live view; its whole transcript is on its own page. */
const EVENTS_KEPT = 2000;

let state: LiveState = { connected: false, log: [] };
const listeners = new Set<(s: LiveState) => void>();

function update(change: Partial<LiveState>): void {
  state = { ...state, ...change };
  for (const listener of listeners) listener(state);
}

/**
 * Opens the one event stream of the page. The browser reconnects by itself and sends the
 * last id it saw (`Last-Event-ID`): the server replays what was missed from its files.
 */
export function connect(): void {
  const source = new EventSource('/events');
  source.onopen = () => update({ connected: true });
  source.onerror = () => update({ connected: false });
  source.addEventListener('status', (e) =>
    update({ health: JSON.parse((e as MessageEvent<string>).data) as Health }),
  );
  source.addEventListener('runner', (e) => {
    const entry = JSON.parse((e as MessageEvent<string>).data) as RunnerEntry;
    const log = [...state.log.slice(-(LOG_KEPT - 1)), entry];
    if (entry.event === 'session_started')
      update({
        log,
        session: { id: String(entry.session), item: String(entry.item), events: [], ended: false },
        lastEventAt: Date.now(),
      });
    else if (
      state.session !== undefined &&
      state.session.id === entry.session &&
      entry.event === 'session_ended'
    )
      update({ log, session: { ...state.session, ended: true } });
    else update({ log });
  });
  source.addEventListener('stream', (e) => {
    const event = JSON.parse((e as MessageEvent<string>).data) as StreamEvent;
    const current =
      state.session !== undefined && state.session.id === event.session
        ? state.session
        : { id: String(event.session), item: String(event.item), events: [], ended: false };
    update({
      session: { ...current, events: [...current.events.slice(-(EVENTS_KEPT - 1)), event] },
      lastEventAt: Date.now(),
    });
  });
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

/** Re-renders every `ms` (clocks on the page: elapsed and idle time). */
export function useTick(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
