import type { SandboxSettings } from '../agent/settings.js';
import type { CliName } from '../config/cli-names.js';
import type { SessionSettings } from '../config/schema.js';
import type { EnvironmentConfig } from '../environment/config-schema.js';
import type { CandidateEntry, Item } from '../queue/item.js';
import type { AskedRole } from '../lib/session-roles.js';

// The port through which a stage has an agent session of its own run (a reviewer; a judge, a
// proposer): the session host runs every session, and a stage declares only the kind it asks
// for. A session asked so reads the item's work and never writes it.

/** Where and how an item's work is done, as its settings resolve (its persona's, its own). */
export interface ItemWork {
  workDir: string;
  /** The persona's settings and the item's, the nearest last: a stage's own settings are picked from them. */
  layers: readonly SessionSettings[];
  sandbox: SandboxSettings;
  /** What makes its worktree ready: setup, maintenance, the files copied in. */
  environment: EnvironmentConfig;
  /** Whether its branch lands on a target. */
  land: boolean;
  /** Whether its work goes to a pull request. */
  forge: boolean;
  /** Whether a reviewer approves its work before it goes on. */
  review: boolean;
  /** The CLI its sessions run on, and those it falls back on, in order. */
  cli: CliName;
  fallbackClis: readonly CliName[];
  /** What its candidates and their judge may spend together, if capped. */
  candidatesMaxCostUsd?: number;
  /** The candidates that try it should its own work fail (`candidates.when: after_failure`). */
  candidatesOnFailure?: readonly CandidateEntry[];
}

/** An answer read: what it says, or why it says nothing that can be used. */
export type AnswerRead<A> = { kind: 'valid'; value: A } | { kind: 'invalid'; reason: string };

/**
 * A kind of session a stage asks for, declared once: who it is, what it is told first, the
 * shape its answer is held to, and how that answer is read and checked.
 */
export interface SessionKind<A> {
  readonly role: AskedRole;
  /** What it does, as its session's title says (`Review` of …). */
  readonly task: string;
  /** Who it is told it is (the first line of its system prompt). */
  readonly identity: string;
  /** The message it starts with: its task is in its prompt. */
  readonly start: string;
  /** The JSON Schema its answer is held to, by a CLI that can be (claude, codex). */
  readonly outputSchema: Readonly<Record<string, unknown>>;
  /** Its last words read and checked against `item`. */
  read(text: string, item: Item): AnswerRead<A>;
}

/** One session a stage asks for: its kind, its CLI, its task and where it reads. */
export interface SessionAsk<A> {
  kind: SessionKind<A>;
  cli: CliName;
  model?: string;
  /** Its task, whole (the item, what to judge, the answer asked for). */
  prompt: string;
  /** The item's work dir in its worktree, and the worktree, which it only reads. */
  workDir: string;
  worktree: string;
  timeoutSeconds: number;
  sandbox: SandboxSettings;
  /** What it may spend, besides the run's limits. */
  maxCostUsd?: number;
}

/** What the session answered, or why it answered nothing (it approves nothing then). */
export type Answered<A> =
  | { kind: 'answered'; value: A; sessionId: string; costUsd: number }
  | {
      kind: 'unanswered';
      /** Its outcome (`timeout`, `rate_limited`, `invalid`…), and why, in a line. */
      outcome: string;
      reason: string;
      /** Absent: it never started. */
      sessionId?: string;
      costUsd: number;
      /** Not to be asked again before this (epoch ms): its CLI held back by a usage limit. */
      retryAt?: number;
    };

/** The session host as a stage sees it. */
export interface Sessions {
  /** The item's work as its settings resolve, or throws why they cannot be. */
  workOf(item: Item): Promise<ItemWork>;
  /**
   * Runs a session of `ask`'s kind on the item's work as any session is run (archived, its cost
   * in the budget, stopped with the run) and reads its answer; it settles nothing of the item.
   */
  ask<A>(item: Item, ask: SessionAsk<A>): Promise<Answered<A>>;
}
