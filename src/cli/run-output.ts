import { formatDuration } from '../lib/duration.js';
import { plural } from '../lib/text.js';
import type { EventName, RunnerEvent } from '../runner/index.js';
import type { Output } from './output.js';
import { planSummaryLines } from './plan-text.js';
import { statusIs } from '../queue/item-status.js';
import type { AskedRole } from '../lib/session-roles.js';

/** Events a person sees on a terminal besides every warning and error. */
const SHOWN: ReadonlySet<EventName> = new Set([
  'run_started',
  'night_planned',
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
  'leftover_git_ended',
  'items_requeued_after_crash',
  'run_finished',
  'yolo',
  'idle',
  'workspace_fault',
  'limit_too_far',
  'items_cannot_run',
  'gate_ended',
  'pushed',
  'queue_reachable',
  'reviewed',
  'landed',
]);

/** How `ralph run` reports: every event as it happens, and the end. */
export interface RunConsole {
  show: (event: RunnerEvent) => void;
  close: () => void;
}

/** The fields of an event as `key=value` words. */
function fields(event: RunnerEvent): string {
  const { time: _time, level: _level, event: _event, ...rest } = event;
  return Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

/** What an asked session does to its item, in the log's words. */
const ASKED_WORDS: Record<AskedRole, string> = {
  reviewer: 'reviewed by',
  judge: 'judged by',
  proposer: 'rules proposed by',
};

/** One short line for an event. */
function describe(event: RunnerEvent): string {
  let detail: string;
  switch (event.event) {
    case 'session_started':
      detail =
        event.role !== undefined
          ? `${event.item} ${ASKED_WORDS[event.role]} ${event.cli}, session ${event.session}`
          : `${event.item} (attempt ${event.attempt}) session ${event.session}`;
      break;
    case 'session_ended':
      // An asked session moves no item itself: its answer is said once it is read.
      detail =
        event.role !== undefined
          ? `${event.item}: its ${event.role}'s session ${event.outcome} ($${event.costUsd.toFixed(4)})`
          : `${event.item}: ${event.outcome} — ${event.message} ($${event.costUsd.toFixed(4)})${event.itemStatus === undefined ? '' : ` → ${event.itemStatus}`}`;
      break;
    case 'reviewed':
      detail = `${event.item}: ${event.overall === 'approve' ? 'approved' : 'changes requested'} by ${event.cli}${event.itemStatus === undefined ? '' : ` → ${event.itemStatus}`}`;
      break;
    case 'landed':
      detail = `${event.item} on ${event.target} at ${event.commit.slice(0, 12)}${event.already ? ' (found landed)' : ''}`;
      break;
    case 'idle':
      detail = `waiting for ${event.waitingFor}`;
      break;
    case 'night_planned':
      detail = `\n${planSummaryLines(event, event).join('\n')}`;
      break;
    case 'gate_ended':
      detail = `${event.item}: ${event.gate} ${event.passed ? 'passed' : 'FAILED'}${event.timedOut ? ' (timed out)' : event.passed ? '' : ` (exit ${String(event.exitCode)})`}`;
      break;
    default:
      detail = fields(event);
  }
  const level = event.level === 'info' ? '' : `${event.level.toUpperCase()} `;
  return `${event.time.slice(11, 19)} ${level}${event.event.replace(/_/g, ' ')}: ${detail}`;
}

type Progress = Extract<RunnerEvent, { event: 'session_progress' }>;

/**
 * When stdout is not a terminal: every event as a JSON line, for tools (a session's progress
 * excepted). On a terminal: one short line per event, and a live status line (which item of how
 * many, elapsed, last tool, cost) redrawn in place at the bottom, so it never scrolls the screen.
 */
export function runConsole(
  output: Output,
  // A terminal that does not say its width (0 or unknown) gets a common one, not a stub line.
  columns = () => process.stdout.columns || 100,
  /** Where the dashboard is, when a server runs. */
  dashboard: () => string | undefined = () => undefined,
): RunConsole {
  if (!output.isTTY) {
    return {
      show: (event) => {
        if (event.event !== 'session_progress') output.out(JSON.stringify(event));
      },
      close: () => undefined,
    };
  }
  // Every running session (several with --workers), in the order they started.
  const sessions = new Map<string, Progress>();
  // The gate a session's work is being checked by, once its agent has finished.
  const gates = new Map<string, string>();
  // The items started this run, in order (a retry is the same item, not another), and those of
  // them back in line for a retry: the queue counts those among the items waiting.
  const startedItems: string[] = [];
  const backInLine = new Set<string>();
  const ordinal = (item: string) => startedItems.indexOf(item) + 1;
  const total = (queued: number) => startedItems.length + queued - backInLine.size;
  let runCostUsd = 0;
  let timer: NodeJS.Timeout | undefined;
  const clear = () => {
    if (shown) output.raw(Buffer.from('\r\x1b[2K'));
    shown = false;
  };
  let shown = false;
  const activity = (session: Progress) => {
    const gate = gates.get(session.session);
    if (gate !== undefined) return `gate: ${gate}`;
    if (session.lastActivityAt === undefined) return 'starting';
    return session.lastTool
      ? `last: ${session.lastTool} (${plural(session.toolCalls, 'tool call')})`
      : 'no tool call yet';
  };
  const elapsed = (session: Progress) =>
    formatDuration((Date.now() - Date.parse(session.startedAt)) / 1000);
  const draw = () => {
    clear();
    const running = [...sessions.values()];
    const last = running.at(-1);
    if (last === undefined) return;
    const costUsd = running.reduce((sum, s) => sum + (s.costUsd ?? 0), 0);
    const cost = `$${costUsd.toFixed(4)} (run $${(runCostUsd + costUsd).toFixed(2)})`;
    const head =
      running.length === 1
        ? [
            `▶ item ${ordinal(last.item)} of ${total(last.queued)}: ${last.item}${last.role === undefined ? '' : ` (${last.role})`}`,
            elapsed(last),
            activity(last),
          ]
        : [
            `▶ ${running.length} running (${startedItems.length} of ${total(last.queued)} started)`,
            ...running.map((s) => `${s.item} ${elapsed(s)} ${activity(s)}`),
          ];
    const parts = [...head, cost, ...[dashboard()].filter((url) => url !== undefined)];
    const line = parts.join(' · ').slice(0, Math.max(20, (columns() || 100) - 1));
    output.raw(Buffer.from(line));
    shown = true;
  };
  const stopTimer = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    show: (event) => {
      if (event.event === 'session_progress') {
        if (!startedItems.includes(event.item)) startedItems.push(event.item);
        backInLine.delete(event.item);
        sessions.set(event.session, event);
        timer ??= setInterval(draw, 1000).unref();
        draw();
        return;
      }
      if (event.event === 'gate_started') {
        gates.set(event.session, event.gate);
        draw();
        return;
      }
      if (event.event === 'session_ended') {
        runCostUsd += event.costUsd;
        if (event.itemStatus !== undefined && statusIs(event.itemStatus, 'runnable'))
          backInLine.add(event.item);
        sessions.delete(event.session);
        gates.delete(event.session);
        if (sessions.size === 0) stopTimer();
      }
      if (!SHOWN.has(event.event) && event.level === 'info') return;
      clear();
      if (event.level === 'info') output.out(describe(event));
      else output.err(describe(event));
      draw();
    },
    close: () => {
      stopTimer();
      clear();
    },
  };
}
