import type { StreamIssue } from '../stream/events.js';
import type { Redactor } from '../lib/redact.js';
import type { LoopResult } from './run-result.js';
import type { PlanSummary } from './plan-summary.js';
import type { ItemStatus } from '../queue/item-status.js';
import type { AskedRole } from '../lib/session-roles.js';

/** How much an event matters to a person reading the log. */
export type Level = 'info' | 'warn' | 'error';

/** A limit, window or backoff the runner sleeps through (also in `state/waiting.json`). */
type WaitFields = { until: string; reason: string };

/**
 * Every event of the runner with its fields, one definition each. The log file, the terminal,
 * the tests and the server all receive these; the log file keeps them as JSON lines
 * `{time, level, event, ...fields}`.
 */
export interface RunnerEvents {
  run_started: {
    root: string;
    pid: number;
    once: boolean;
    drain: boolean;
    maxIterations?: number;
    workers: number;
  };
  run_finished: LoopResult & { stoppedBy?: string };
  /** The night's plan as the run starts (`ralph plan`, in brief). */
  night_planned: PlanSummary & { workers: number; reserve: number };
  /** The night could not be planned: it runs in the queue's order. */
  plan_failed: { error: string };
  /** `cost`: the run's or the fleet's cost cap, not a deadline or a window. */
  run_limit_reached: { reason: string; cost?: boolean };
  yolo: { message: string };
  /** A change made over HTTP (the dashboard, the API), and the address it came from. */
  http_action: { action: string; items?: string[]; from: string };
  /** `--workers N` where the items waiting can only run one after another. */
  workers_serial: { workers: number; workDir: string; message: string };
  stale_lock_reclaimed: { file: string; holder: unknown };
  runner_lock_lost: { error: string };
  stopping: { signal: string };
  forcing_stop: { signal: string };
  watchdog: { operation: string; afterMs: number };
  idle: { waitingFor: string };
  paused: { reason: string; file: string };
  resumed: Record<string, never>;
  pausing: { reason: string };
  pause_write_failed: { error: string };
  window_wait: WaitFields;
  limit_wait: WaitFields;
  failure_backoff: WaitFields;
  limit_too_far: { until: string; maxLimitWait: number };
  /** An agent CLI takes no new session until `until` (absent: not in this run). */
  cli_held: { cli: string; until?: string; reason: string; kind: string };
  /** A fallback CLI that could not take over: not installed (the run stops), or no login seen. */
  fallback_unready: { cli: string; problem: string };
  /** A session runs on a fallback CLI, its own being held; `handover`: its characters. */
  fallback: {
    item: string;
    session: string;
    cli: string;
    from: string;
    reason: string;
    handover: number;
  };
  item_rejected: { item: string; reason: string };
  workspace_fault: { item: string; reason: string };
  items_cannot_run: { items: { id: string; reason: string }[] };
  prompt_cut: {
    item: string;
    session: string;
    part: string;
    removedChars: number;
    sizes: Record<string, number>;
  };
  spawn_failed: { item: string; session: string; reason: string };
  session_started: {
    item: string;
    session: string;
    /** `reviewer`: a reviewer's session of the item's work, not its author's. */
    role?: AskedRole;
    /** The agent CLI that runs it. */
    cli: string;
    attempt: number;
    pid?: number;
    command: string[];
    resume?: string;
  };
  /** A running session's progress: for live displays only, never written to the log file. */
  session_progress: {
    item: string;
    role?: AskedRole;
    itemTitle: string;
    session: string;
    startedAt: string;
    queued: number;
    lastTool?: string;
    toolCalls: number;
    costUsd?: number;
    lastActivityAt?: string;
  };
  session_record_write_failed: { error: string };
  stream_issue: { session: string; issue: StreamIssue['issue']; detail: string };
  session_id_mismatch: { session: string; reported: string };
  /** What a CLI keeps outside its stream (codex's refused commands) could not be read. */
  after_run_unread: { session: string; reason: string };
  resume_failed: { item: string; session: string; resumed?: string };
  session_ended: {
    item: string;
    session: string;
    role?: AskedRole;
    outcome: string;
    status: string;
    message: string;
    itemStatus?: ItemStatus;
    /** What its agent asks a person, when the item now waits for an answer. */
    question?: string;
    costUsd: number;
    exit?: { code: number | null; signal: string | null };
    stopReason?: string;
    killedProcesses: number;
    streamBytes: number;
    streamMs?: number;
  };
  orphan_session_recovered: {
    session: string;
    item: string;
    pid?: number;
    killedProcesses: number;
  };
  orphan_session_unreadable: { file: string };
  /** Gits a dead runner left running, ended before recovery touched its worktrees. */
  leftover_git_ended: { pids: number[] };
  items_requeued_after_crash: { items: string[]; sessions: string[] };
  /** The fleet was paused (`ralph pause --fleet`): this runner pauses as for its interrupt file. */
  fleet_paused: { reason: string; by: string };
  fleet_resumed: Record<string, never>;
  /** The leases of the running items could not be renewed (the queue's database away). */
  lease_renewal_failed: { error: string };
  /** Items whose runner stopped renewing their leases, back in the queue with the attempt counted. */
  leases_expired: { items: string[] };
  /** A settle refused: the session's lease on its item was lost (expired, claimed again). */
  settle_fenced: {
    item: string;
    session: string;
    attempt: number;
    settlement: string;
    reason: string;
  };
  /** Git mode asked for, but the work dir is not in a git repository: the item runs without it. */
  git_skipped: { item: string; workDir: string };
  worktree_ready: { item: string; branch: string; worktree: string; base: string; reused: boolean };
  work_committed: { item: string; branch: string; commit: string };
  worktree_removed: { item: string; worktree: string };
  worktree_failed: { item: string; operation: string; error: string };
  pushed: { item: string; branch: string; remote: string };
  push_failed: { item: string; branch: string; remote: string; error: string; retryAt: string };
  /** A person stopped this item's session alone (`ralph stop`): back in line, or cancelled. */
  item_stopped: { item: string; session: string; by: string; itemStatus: ItemStatus };
  /** The sandbox's proxy refused a connection of the agent's or of its gates'. */
  egress_blocked: {
    item: string;
    session: string;
    by: 'agent' | 'gate' | 'setup' | 'maintenance';
    host: string;
    port: number;
    at: string;
  };
  /** A person's message given to a running session on its CLI's stdin, mid-task. */
  message_given: { item: string; session: string; from: string };
  /** Review: a reviewer of another CLI reads the item's work (its diff, capped at `diffChars`). */
  review_started: { item: string; cli: string; diffChars: number; leftOut: number };
  /** Its verdict: approved (on to \`itemStatus\`), or changes asked for (back to its agent). */
  reviewed: {
    item: string;
    cli: string;
    session: string;
    overall: string;
    costUsd: number;
    itemStatus?: ItemStatus;
  };
  /** No valid verdict (an error, a timeout, a limit, an answer that is none): unreviewed. */
  review_failed: { item: string; cli: string; session?: string; reason: string; retryAt: string };
  /** Candidates: several CLIs are to try the item (\`candidates\`: each letter, CLI and model). */
  candidates_forked: { item: string; candidates: string[] };
  /** A lesson gathered from the night (a gate failing again, a landing's conflict, a failed setup, findings fixed). */
  lesson_gathered: { lesson: string; kind: string; items: string[] };
  /** Rules proposed from the lessons: each waits for a person in the inbox. */
  rules_proposed: {
    proposal: string;
    cli: string;
    rules: string[];
    dropped: number;
    costUsd: number;
  };
  /** No rules were proposed: none were due, or the proposer failed (\`proposal\` then says so). */
  rules_not_proposed: { proposal?: string; reason: string };
  /** The judge compares an item's passing candidates (\`shown\`: how many), anonymized. */
  judgement_started: { item: string; cli: string; shown: number; diffChars: number };
  /** A candidate was picked (by the gates alone, or by the judge): its work goes on. */
  candidate_picked: {
    item: string;
    candidate: string;
    cli: string;
    by: string;
    costUsd: number;
    itemStatus?: ItemStatus;
  };
  /** No candidate was picked: none passed (failed), or the judge could not pick (a person decides). */
  candidates_unpicked: { item: string; reason: string; itemStatus?: ItemStatus };
  /** Setup: an item's worktree is to be made ready (\`wanted\`: setup or maintenance) first. */
  environment_wanted: { item: string; wanted: string };
  environment_started: { item: string; wanted: string; worktree: string; commands: number };
  /** Files of the repository's \`.worktreeinclude\` copied into a new worktree. */
  worktree_included: { item: string; files: number };
  /** A CLI the night runs on surely cannot log in (checked at the start): held for the run. */
  login_failed: { cli: string; problem: string; items: string[] };
  /** A CLI whose login could not be seen (no status command, no credential found): a doubt. */
  login_unready: { cli: string; problem: string };
  /** The machine cannot be kept awake while agents work (\`run.keepAwake\`): why. */
  awake_unavailable: { problem: string };
  /**
   * A dependency tree given to an item's worktree (\`given\`: held already, a spare moved in,
   * copied, or built by its install commands), \`key\` naming its lockfiles' contents.
   */
  dependencies_given: { item: string; key: string; paths: string[]; given: string };
  /** A spare copy of a tree could not be made: the next worktree's is copied when it needs it. */
  dependencies_spare_failed: { key: string; error: string };
  environment_ready: { item: string; wanted: string; durationMs: number; log: string };
  environment_failed: { item: string; wanted: string; failure: string; log: string };
  /** Landing: an item's branch is being merged onto its target and checked there. */
  land_started: { item: string; target: string; method: string; branch: string };
  land_gate_started: { item: string; target: string; gate: string };
  /** The target holds the item's work (`already`: found landed after a crash). */
  landed: { item: string; target: string; commit: string; already: boolean; pushedTo?: string };
  /** The target moved under a landing (here, or on the remote a push went to): made again. */
  land_retried: { item: string; target: string; why: string };
  /** The target was left as it was; the item goes back to its agent, or fails (`itemStatus`). */
  land_refused: {
    item: string;
    target: string;
    outcome: string;
    error: string;
    itemStatus?: ItemStatus;
  };
  /** Cancelled while it landed: the target was left without it. */
  land_withdrawn: { item: string; target: string };
  /** A person's decision on an item (`ralph accept|reject|defer`), written to the ledger. */
  decision_taken: {
    item: string;
    decision: string;
    id: string;
    by: string;
    itemStatus: ItemStatus;
  };
  /** One effect of a decision carried out (a branch kept, a revert landed, a pull request closed). */
  decision_carried: { item: string; effect: string; detail?: string };
  /** The world refused a decision's effect: the item is back where it was, `error` says why. */
  decision_refused: { item: string; effect: string; error: string };
  /** A decision's effect could not be made now (git or the forge failed): tried again at `retryAt`. */
  decision_delayed: { item: string; effect: string; error: string; retryAt: string };
  /** A landing that could not be made (git failed): the item waits to land, tried again later. */
  /** A landing that could not be made: tried again at `retryAt`, or failed after `looks` tries. */
  land_failed: { item: string; target: string; error: string; retryAt?: string; looks?: number };
  /** The item's branch (or the land target) pushed, its pull request opened or updated. */
  pull_request_opened: { item: string; number: number; url: string; head: string; commit: string };
  pull_request_merged: { item: string; number: number };
  /** Its base moved before the merge: the branch brought up to it, the checks run again. */
  pull_request_updated: { item: string; number: number; base: string };
  /** A person closed it unmerged: the item is cancelled. */
  pull_request_closed: { item: string; number: number };
  /** Red checks or changes asked for: back to the agent, or failed (`itemStatus`). */
  checks_failed: { item: string; outcome: string; error: string; itemStatus?: ItemStatus };
  /** The forge refused the token or the settings (the night pauses), or one item's request. */
  forge_refused: { item: string; error: string };
  /** The forge did not answer (down, rate-limited): the items wait, asked again at `retryAt`. */
  forge_unavailable: { error: string; retryAt: string };
  forge_reachable: { after: number };
  forge_comment_failed: { item: string; error: string };
  /** Items await checks and no `forge` is set to read them from. */
  forge_unconfigured: { items: string; reason: string };
  /** An imported Linear issue moved as its item is worked (`told`: what its new state means). */
  linear_told: { item: string; issue: string; told: string; state?: string };
  /** Linear refused the key (the night pauses) or did not answer (asked again at `retryAt`). */
  linear_failed: { item: string; error: string; retryAt?: string };
  /** A stage's step for an item threw: the item waits where it is, looked at again later. */
  stage_failed: { stage: string; item: string; error: string };
  /** `forge.maxOpen` reached: no new item starts. */
  forge_full: { reason: string };
  gate_started: { item: string; session: string; gate: string };
  gate_ended: {
    item: string;
    session: string;
    gate: string;
    passed: boolean;
    exitCode: number | null;
    timedOut: boolean;
    durationMs: number;
  };
  state_recovered: { operation: string };
  /** The queue's database cannot be reached: no claim, settlements kept, until it can. */
  queue_unreachable: { operation: string; error: string };
  queue_reachable: { operation: string };
  state_contention: { operation: string; error: string };
  queue_quarantined: { operation: string; copy?: string; lastGood?: string; error?: string };
  command_failed: { command: string; pid: number; error: string };
  /** A notification (or a write-back to an issue) delivered to one of its targets. */
  notify_sent: { id: string; target: string; about: string };
  /** A try that failed: tried again at `retryAt`, or given up after a day of tries. */
  notify_failed: { id: string; target: string; about: string; error: string; retryAt?: string };
  /** A notification could not even be written to the outbox (a full disk): it is lost. */
  notify_unwritten: { about: string; error: string };
}

export type EventName = keyof RunnerEvents;

/** One event as delivered: a union discriminated by `event`. */
export type RunnerEvent = {
  [K in EventName]: { time: string; level: Level; event: K } & RunnerEvents[K];
}[EventName];

/** Events for live displays only: too frequent for the log file. */
export const LIVE_ONLY: ReadonlySet<EventName> = new Set(['session_progress']);

export type Listener = (event: RunnerEvent) => void;

/**
 * The runner's one emitter. Every event is redacted once here, so no subscriber (the log file,
 * the terminal, a test, the server) ever sees a secret.
 */
export class RunEvents {
  private readonly listeners = new Set<Listener>();
  private redactor: Redactor | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Masks these values in every event from now on. */
  redactWith(redactor: Redactor): void {
    this.redactor = redactor;
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  info<K extends EventName>(event: K, ...data: FieldsArg<K>): void {
    this.emit('info', event, data[0]);
  }

  warn<K extends EventName>(event: K, ...data: FieldsArg<K>): void {
    this.emit('warn', event, data[0]);
  }

  error<K extends EventName>(event: K, ...data: FieldsArg<K>): void {
    this.emit('error', event, data[0]);
  }

  private emit(level: Level, event: EventName, fields: object | undefined): void {
    const raw = { time: new Date(this.now()).toISOString(), level, event, ...fields };
    const entry = (this.redactor?.redactValue(raw) ?? raw) as RunnerEvent;
    for (const listener of this.listeners) listener(entry);
  }
}

/** Events without fields take none. */
type FieldsArg<K extends EventName> =
  RunnerEvents[K] extends Record<string, never> ? [] : [RunnerEvents[K]];
