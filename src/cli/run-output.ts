import { formatDuration } from '../lib/duration.js';
import type { Progress } from '../runner/context.js';
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
  'window_wait',
  'failure_backoff',
  'run_limit_reached',
  'orphan_session_recovered',
  'items_requeued_after_crash',
  'run_finished',
  'yolo',
  'idle',
  'workspace_fault',
  'limit_too_far',
  'items_cannot_run',
]);

/** How `ralph run` reports: log entries, a session's progress, and the end. */
export interface RunConsole {
  log: (entry: LogEntry) => void;
  progress: (progress: Progress) => void;
  close: () => void;
}

/** One short line for a log entry. */
function describe(entry: LogEntry): string {
  const { time, level, event, ...rest } = entry;
  const detail =
    event === 'session_started'
      ? `${String(rest.item)} (attempt ${String(rest.attempt)}) session ${String(rest.session)}`
      : event === 'idle'
        ? `waiting for ${String(rest.waitingFor)}`
        : event === 'session_ended'
          ? `${String(rest.item)}: ${String(rest.outcome)} — ${String(rest.message)} ($${Number(rest.costUsd ?? 0).toFixed(4)}) → ${String(rest.itemStatus)}`
          : Object.entries(rest)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
              .join(' ');
  return `${time.slice(11, 19)} ${level === 'info' ? '' : `${level.toUpperCase()} `}${event.replace(/_/g, ' ')}: ${detail}`;
}

/**
 * When stdout is not a terminal: every log entry as a JSON line, for tools. On a terminal: one
 * short line per event, and a live status line (item, elapsed, last tool, cost, queue left)
 * redrawn in place at the bottom, so it never scrolls the screen.
 */
export function runConsole(
  output: Output,
  // A terminal that does not say its width (0 or unknown) gets a common one, not a stub line.
  columns = () => process.stdout.columns || 100,
): RunConsole {
  if (!output.isTTY) {
    return {
      log: (entry) => output.out(JSON.stringify(entry)),
      progress: () => undefined,
      close: () => undefined,
    };
  }
  let session: Extract<Progress, { kind: 'started' }> | undefined;
  let beat: Extract<Progress, { kind: 'heartbeat' }> | undefined;
  let shown = false;
  let started = 0;
  let runCostUsd = 0;
  let timer: NodeJS.Timeout | undefined;
  const clear = () => {
    if (shown) output.raw(Buffer.from('\r\x1b[2K'));
    shown = false;
  };
  const draw = () => {
    clear();
    if (session === undefined) return;
    const parts = [
      `▶ item ${started} of ${started + session.queued}: ${session.itemId}`,
      formatDuration((Date.now() - session.startedAt) / 1000),
      beat === undefined
        ? 'starting'
        : beat.lastTool
          ? `last: ${beat.lastTool} (${beat.toolCalls} tool calls)`
          : 'no tool call yet',
      `$${(beat?.costUsd ?? 0).toFixed(4)} (run $${(runCostUsd + (beat?.costUsd ?? 0)).toFixed(2)})`,
    ].filter((p) => p !== undefined);
    const line = parts.join(' · ').slice(0, Math.max(20, (columns() || 100) - 1));
    output.raw(Buffer.from(line));
    shown = true;
  };
  return {
    log: (entry) => {
      if (entry.event === 'session_ended') runCostUsd += Number(entry.costUsd ?? 0);
      if (!SHOWN.has(entry.event) && entry.level === 'info') return;
      clear();
      if (entry.level === 'info') output.out(describe(entry));
      else output.err(describe(entry));
      draw();
    },
    progress: (progress) => {
      if (progress.kind === 'started') {
        started++;
        session = progress;
        beat = undefined;
        timer ??= setInterval(draw, 1000).unref();
      } else if (progress.kind === 'heartbeat') {
        beat = progress;
      } else {
        session = undefined;
        clearInterval(timer);
        timer = undefined;
      }
      draw();
    },
    close: () => {
      clearInterval(timer);
      clear();
    },
  };
}
