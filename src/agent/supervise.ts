import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../lib/clock.js';
import { watchNames } from '../lib/watch.js';
import { StreamParser, type ParsedLine } from '../stream/parser.js';
import { applyToSummary, emptySummary, type StreamSummary } from '../stream/summary.js';
import type { DecoderFactory } from '../stream/decoder.js';
import type { SessionCost } from './cost.js';
import type { StopReason } from './outcome.js';
import { decide, effectiveStopReason, type SupervisionLimits } from './supervision-policy.js';
import {
  reapSession,
  stopAgent,
  type AgentChild,
  type ExitStatus,
  type StopGraces,
} from './process.js';

/** Limits and hooks of one supervised session. */
export interface SuperviseOptions {
  child: AgentChild;
  sessionId: string;
  stdoutFile: string;
  stderrFile: string;
  timeoutMs: number;
  idleTimeoutMs: number;
  graces: StopGraces;
  /** How long an agent may run on after printing its `result` line. */
  afterResultGraceMs: number;
  /** Bytes of stdout plus stderr past which the agent is stopped (a flood fills the disk). */
  maxOutputBytes: number;
  /** Says why the disk is too full to go on, if it is (checked every tick). */
  diskLow?: () => string | undefined;
  /** The interrupt file: its appearance stops the agent (watched, and checked every tick). */
  interrupt?: {
    state: () => 'absent' | 'empty' | 'present';
    dir: string;
    name: string;
  };
  clock: Clock;
  /** The CLI's stream format. */
  decoder: DecoderFactory;
  /** Limits ralph holds the agent to itself (those its CLI has no flag for). */
  ralphLimits?: { maxTurns?: number; maxCostUsd?: number };
  /** The session's cost so far, from its summary. */
  cost?: (summary: StreamSummary) => SessionCost | undefined;
  /** How often the files are read and the limits checked. */
  tickMs?: number;
  onLine?: (parsed: ParsedLine, summary: StreamSummary) => void;
  /** Called at most every `heartbeatMs` while something changed. */
  onHeartbeat?: (heartbeat: Heartbeat) => void;
  heartbeatMs?: number;
}

/** Progress figures of a running session. */
export interface Heartbeat {
  summary: StreamSummary;
  cost?: SessionCost;
  stdoutBytes: number;
  stderrBytes: number;
  lastActivityAt: number;
}

/** How a supervised session ended. */
export interface SupervisedEnd {
  exit: ExitStatus;
  stopReason?: StopReason;
  /** The last signal the stop ladder needed, if the runner stopped the agent. */
  stopSignal?: NodeJS.Signals;
  summary: StreamSummary;
  stdoutBytes: number;
  stderrBytes: number;
  /** Processes of the session still alive after the agent's exit, killed. */
  killedProcesses: number[];
  /** From the start of supervision to the last byte of the stream parsed, in ms. */
  streamMs: number;
}

/** A session under watch; `stop` ends it early. */
export interface Supervision {
  done: Promise<SupervisedEnd>;
  stop(reason: StopReason, options?: { force?: boolean }): void;
  /**
   * Writes `line` to the agent's live stdin while its turn runs (before its result): false
   * when it has none, or it is closed.
   */
  tell(line: string): boolean;
}

const READ_CHUNK = 1024 * 1024;
const READ_SLICE = 32 * READ_CHUNK;
/** An empty interrupt file may be an agent's `echo reason > file` half done: its reason is awaited. */
const EMPTY_INTERRUPT_GRACE_MS = 250;

/**
 * What the agent wrote: its stdout file followed as it grows (the file is the archive; parsing
 * reads it back) into the running summary, and the size of its stderr file.
 */
class SessionOutput {
  readonly summary = emptySummary();
  stdoutBytes = 0;
  stderrBytes = 0;
  lastActivityAt: number;
  resultSeenAt: number | undefined;
  /** Whether anything changed since the last heartbeat. */
  changed = true;
  private fd: number | undefined;
  private readonly buffer = Buffer.allocUnsafe(READ_CHUNK);
  private readonly parser: StreamParser;

  constructor(
    private readonly options: SuperviseOptions,
    private readonly clock: Clock,
  ) {
    this.lastActivityAt = clock.now();
    this.fd = fs.openSync(options.stdoutFile, 'r');
    this.parser = new StreamParser((parsed) => {
      applyToSummary(this.summary, parsed, clock.now());
      options.onLine?.(parsed, this.summary);
    }, options.decoder());
  }

  /** Reads what the agent wrote since the last read; true when it stopped at `limit`. */
  readAvailable(limit = Infinity): boolean {
    if (this.fd === undefined) return false;
    for (let read = 0; ; read += READ_CHUNK) {
      if (read >= limit) return true;
      const n = fs.readSync(this.fd, this.buffer, 0, READ_CHUNK, this.stdoutBytes);
      if (n <= 0) return false;
      this.stdoutBytes += n;
      this.touch();
      this.parser.push(this.buffer.subarray(0, n));
      if (this.summary.result !== undefined && this.resultSeenAt === undefined) {
        this.resultSeenAt = this.clock.now();
        // A CLI reading its input live waits for more until its stdin closes.
        this.options.child.input?.end();
      }
    }
  }

  /** Synchronous, like the whole tick: cheaper than promises for a stat every second. */
  checkStderr(): void {
    let size = this.stderrBytes;
    try {
      size = fs.statSync(this.options.stderrFile).size;
    } catch {
      // Gone: keep the last size.
    }
    if (size !== this.stderrBytes) {
      this.stderrBytes = size;
      this.touch();
    }
  }

  /** Reads to the end (the agent has exited), past `result`, and closes the file. */
  finish(): void {
    this.readAvailable();
    this.parser.finish();
    this.checkStderr();
    this.close();
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  heartbeat(): Heartbeat {
    const { summary, stdoutBytes, stderrBytes, lastActivityAt } = this;
    return {
      summary,
      cost: this.options.cost?.(summary),
      stdoutBytes,
      stderrBytes,
      lastActivityAt,
    };
  }

  private touch(): void {
    this.lastActivityAt = this.clock.now();
    this.changed = true;
  }
}

/** Stops the agent once, by the kill ladder; a later forced request skips what is left of it. */
class AgentStopper {
  reason: StopReason | undefined;
  stopping: Promise<NodeJS.Signals | undefined> | undefined;
  private forced = false;

  constructor(
    private readonly child: AgentChild,
    private readonly graces: StopGraces,
  ) {}

  request(reason: StopReason, resultSeen: boolean, force: boolean): void {
    if (this.child.hasExited()) return;
    if (this.stopping !== undefined) {
      if (force && !this.forced) {
        this.forced = true;
        void stopAgent(this.child, this.graces, { force: true });
      }
      return;
    }
    this.reason = effectiveStopReason(reason, resultSeen);
    this.forced = force;
    this.stopping = stopAgent(this.child, this.graces, { force });
  }
}

/** The limits a supervision holds the session to: the CLI's own, and those ralph counts. */
function limitsOf(options: SuperviseOptions, heartbeatMs: number): SupervisionLimits {
  return {
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    afterResultGraceMs: options.afterResultGraceMs,
    maxOutputBytes: options.maxOutputBytes,
    heartbeatMs,
    emptyInterruptGraceMs: EMPTY_INTERRUPT_GRACE_MS,
    ...options.ralphLimits,
  };
}

/**
 * Follows the agent's stdout file as it grows (the file is the archive; parsing reads it back),
 * keeps the running summary, and acts on the supervision policy's decisions (`decide`): the
 * wall-clock, idle, output and post-result limits, the interrupt file and the disk. Idle time
 * is measured in bytes written to stdout or stderr, not in parsed lines. Every time is read
 * from the injected clock.
 */
export function supervise(options: SuperviseOptions): Supervision {
  const { child, clock } = options;
  const tickMs = options.tickMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 2000;
  const startedAt = clock.now();
  const out = new SessionOutput(options, clock);
  let lastHeartbeatAt = 0;
  const stopper = new AgentStopper(child, options.graces);
  const requestStop = (reason: StopReason, force = false): void =>
    stopper.request(reason, out.summary.result !== undefined, force);

  const limits = limitsOf(options, heartbeatMs);
  let emptyInterruptSince: number | undefined;

  const tick = (): void => {
    // A flood is read in slices so the limits below are still checked while it lasts.
    if (out.readAvailable(READ_SLICE)) schedule();
    out.checkStderr();
    const now = clock.now();
    const interrupt = options.interrupt?.state() ?? 'absent';
    if (interrupt === 'empty') emptyInterruptSince ??= now;
    else emptyInterruptSince = undefined;
    const decision = decide(
      {
        now,
        startedAt,
        lastActivityAt: out.lastActivityAt,
        resultSeenAt: out.resultSeenAt,
        outputBytes: out.stdoutBytes + out.stderrBytes,
        turns: out.summary.assistantMessages,
        costUsd: limits.maxCostUsd === undefined ? undefined : options.cost?.(out.summary)?.usd,
        interrupt,
        emptyInterruptSince,
        diskLow: options.diskLow?.(),
        changedSinceHeartbeat: out.changed,
        lastHeartbeatAt,
      },
      limits,
    );
    if (decision.stop !== undefined) requestStop(decision.stop);
    if (decision.recheckInMs !== undefined) setTimeout(schedule, decision.recheckInMs).unref();
    if (decision.heartbeat) {
      lastHeartbeatAt = now;
      out.changed = false;
      options.onHeartbeat?.(out.heartbeat());
    }
  };

  let finished = false;
  let scheduled = false;
  /** Runs a tick soon; calls while one is pending (a burst of watch events) are one tick. */
  const schedule = (): void => {
    if (finished || scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (!finished) tick();
    });
  };

  const done = (async (): Promise<SupervisedEnd> => {
    const timer = setInterval(schedule, tickMs);
    // The directory is watched (not the file: a deleted and re-created file is a new inode).
    const interrupt = options.interrupt;
    const watcher =
      interrupt === undefined ? undefined : watchNames(interrupt.dir, [interrupt.name], schedule);
    // A live stdin is closed at the result: the stream is read as it is written, not at ticks.
    const streamWatcher =
      child.input === undefined
        ? undefined
        : watchNames(
            path.dirname(options.stdoutFile),
            [path.basename(options.stdoutFile)],
            schedule,
          );
    // A file created between the spawn and the watch is seen by a first tick now.
    schedule();
    try {
      const exit = await child.exited;
      finished = true;
      clearInterval(timer);
      const stopSignal = await stopper.stopping;
      // Everything the agent wrote is in the file by now.
      out.finish();
      const streamMs = clock.now() - startedAt;
      const killedProcesses = await reapSession(
        child.pid,
        options.sessionId,
        options.graces.afterTerminate,
        child.startTime,
      );
      options.onHeartbeat?.(out.heartbeat());
      return {
        exit,
        stopReason: stopper.reason,
        stopSignal,
        summary: out.summary,
        stdoutBytes: out.stdoutBytes,
        stderrBytes: out.stderrBytes,
        killedProcesses,
        streamMs,
      };
    } finally {
      clearInterval(timer);
      watcher?.close();
      streamWatcher?.close();
      child.input?.end();
      out.close();
    }
  })();

  return {
    done,
    stop: (reason, stopOptions) => requestStop(reason, stopOptions?.force ?? false),
    tell: (line) =>
      out.resultSeenAt === undefined &&
      stopper.stopping === undefined &&
      (child.input?.write(line) ?? false),
  };
}
