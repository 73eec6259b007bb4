import type { Outcome } from '../agent/outcome.js';
import type { SessionFiles } from '../archive/paths.js';
import type { Item } from '../queue/item.js';
import type { EgressRefusal } from '../sandbox/proxy.js';
import type { WorkHost } from './host.js';
import type { PreparedSession } from './prepare.js';
import { startSessionServices, type RunningServices } from './services.js';
import { checkWork, type WorkChecked } from './work-check.js';

/** The session whose work runs beside it or is checked after it. */
export interface HostedSession {
  item: Item;
  sessionId: string;
  files: SessionFiles;
  prepared: PreparedSession;
}

/** What checking a session's work hears as it goes. */
export interface CheckHooks {
  /** When the session's CLI started: what it left started since. */
  since: string | undefined;
  onGate: (name: string) => void;
  onEgressRefused: (refusal: EgressRefusal) => void;
}

/**
 * How the host runs a kind of session, declared once: whether it writes its item's worktree,
 * what runs beside it, and how its work is checked when its agent has ended.
 */
export interface HostedKind {
  /**
   * It writes its item's worktree: the worktree is mounted writable, a person's stop or message
   * reaches it, and its end settles its item.
   */
  readonly writes: boolean;
  /** Starts what runs beside it, stopped when it ends. */
  beside(
    host: WorkHost,
    session: HostedSession,
    onRefused: (refusal: EgressRefusal) => void,
  ): Promise<RunningServices | undefined>;
  /** Its work checked once its agent has ended: the outcome after it, and what its record shows. */
  check(
    host: WorkHost,
    signal: AbortSignal,
    session: HostedSession,
    hooks: CheckHooks,
    outcome: Outcome,
  ): Promise<WorkChecked>;
}

/** An item's author: its services beside it, its work committed and gated after. */
export const AUTHOR: HostedKind = {
  writes: true,
  beside: (host, session, onRefused) => startSessionServices(host, session, onRefused),
  check: (host, signal, session, hooks, outcome) =>
    checkWork(host, signal, { ...session, ...hooks }, outcome),
};

/** A session a stage asked for (a reviewer): it reads the work; its work is its answer. */
export const ASKED: HostedKind = {
  writes: false,
  beside: () => Promise.resolve(undefined),
  check: (_host, _signal, _session, _hooks, outcome) => Promise.resolve({ outcome }),
};
