import type { LogEntry } from '../runner/log.js';
import type { Output } from './output.js';

const SHOWN = new Set([
  'run_started',
  'session_started',
  'session_ended',
  'item_rejected',
  'spawn_failed',
  'paused',
  'resumed',
  'pausing',
  'limit_wait',
  'orphan_session_recovered',
  'items_requeued_after_crash',
  'run_finished',
  'yolo',
]);

/**
 * How `ralph run` reports progress: every log entry as a JSON line when stdout is not a
 * terminal (for tools), short human lines on a terminal.
 */
export function runConsole(output: Output): (entry: LogEntry) => void {
  if (!output.isTTY) return (entry) => output.out(JSON.stringify(entry));
  return (entry) => {
    if (!SHOWN.has(entry.event) && entry.level === 'info') return;
    const time = entry.time.slice(11, 19);
    const { time: _t, level, event, ...rest } = entry;
    const detail =
      event === 'session_started'
        ? `${String(rest.item)} (attempt ${String(rest.attempt)}) session ${String(rest.session)}`
        : event === 'session_ended'
          ? `${String(rest.item)}: ${String(rest.outcome)} — ${String(rest.message)} ($${Number(rest.costUsd ?? 0).toFixed(4)}) → ${String(rest.itemStatus)}`
          : Object.entries(rest)
              .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
              .join(' ');
    const line = `${time} ${level === 'info' ? '' : `${level.toUpperCase()} `}${event.replace(/_/g, ' ')}: ${detail}`;
    if (level === 'info') output.out(line);
    else output.err(line);
  };
}
