import type { StopReason } from './outcome.js';

/** What supervision saw of a running session at one moment. */
export interface Observation {
  now: number;
  startedAt: number;
  /** The last byte written to stdout or stderr (or the start). */
  lastActivityAt: number;
  /** When the `result` line was read, if it was. */
  resultSeenAt?: number;
  /** Bytes of stdout and stderr so far. */
  outputBytes: number;
  /** The agent's messages and tool calls so far (ralph's count of its turns). */
  turns: number;
  /** What the session has cost so far, if that is known. */
  costUsd?: number;
  /** The interrupt file: an empty one may be half written. */
  interrupt: 'absent' | 'empty' | 'present';
  /** Since when the interrupt file has been there but empty. */
  emptyInterruptSince?: number;
  /** Why the disk is too full to go on, if it is. */
  diskLow?: string;
  /** Whether anything changed since the last heartbeat, and when that was. */
  changedSinceHeartbeat: boolean;
  lastHeartbeatAt: number;
}

/** The limits of one session. */
export interface SupervisionLimits {
  timeoutMs: number;
  idleTimeoutMs: number;
  afterResultGraceMs: number;
  maxOutputBytes: number;
  heartbeatMs: number;
  /** How long an empty interrupt file waits for its reason before it counts anyway. */
  emptyInterruptGraceMs: number;
  /** A turn limit ralph holds the agent to (for a CLI that has none of its own). */
  maxTurns?: number;
  /** A USD budget ralph holds the agent to (for a CLI that reports its cost as it goes). */
  maxCostUsd?: number;
}

/** What to do now. */
export interface SupervisionStep {
  /** Stop the agent, for this reason. */
  stop?: StopReason;
  /** Write a heartbeat. */
  heartbeat: boolean;
  /** Look again this soon, before the next regular tick. */
  recheckInMs?: number;
}

/**
 * The supervision policy, a pure function of what was observed, the time and the limits: every
 * check of a session's limits is decided here, in this order (a person's pause first, then a
 * finished agent that lingers, a flood, the turn and budget limits ralph holds, a full disk, the wall clock, silence).
 */
export function decide(o: Observation, limits: SupervisionLimits): SupervisionStep {
  const heartbeat = o.changedSinceHeartbeat && o.now - o.lastHeartbeatAt >= limits.heartbeatMs;
  if (o.interrupt === 'present') return { stop: 'interrupt', heartbeat };
  if (o.interrupt === 'empty') {
    const waited = o.now - (o.emptyInterruptSince ?? o.now);
    if (waited >= limits.emptyInterruptGraceMs) return { stop: 'interrupt', heartbeat };
    return { heartbeat, recheckInMs: limits.emptyInterruptGraceMs - waited };
  }
  if (o.resultSeenAt !== undefined && o.now - o.resultSeenAt >= limits.afterResultGraceMs)
    return { stop: 'after_result', heartbeat };
  if (o.outputBytes > limits.maxOutputBytes) return { stop: 'output_limit', heartbeat };
  if (limits.maxTurns !== undefined && o.turns > limits.maxTurns)
    return { stop: 'max_turns', heartbeat };
  if (limits.maxCostUsd !== undefined && (o.costUsd ?? 0) > limits.maxCostUsd)
    return { stop: 'max_budget', heartbeat };
  if (o.diskLow !== undefined) return { stop: 'disk_full', heartbeat };
  if (o.now - o.startedAt >= limits.timeoutMs) return { stop: 'timeout', heartbeat };
  if (o.now - o.lastActivityAt >= limits.idleTimeoutMs) return { stop: 'idle_timeout', heartbeat };
  return { heartbeat };
}

/** Once the result is in, the work is done whatever stops the agent now: the result is kept. */
export function effectiveStopReason(requested: StopReason, resultSeen: boolean): StopReason {
  return resultSeen ? 'after_result' : requested;
}
