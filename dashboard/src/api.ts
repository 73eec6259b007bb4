import type { RunningSession as Running, StatusReport } from '../../src/runner/status-report.js';
/** Calls of the ralph API; the browser sends the server's HttpOnly cookie with each. */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await response.json().catch(() => ({}))) as { error?: string; field?: string };
  if (!response.ok)
    throw new ApiError(
      data.error ?? `${method} ${path}: ${response.status}`,
      response.status,
      data.field,
    );
  return data as T;
}

export const get = <T>(path: string) => call<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => call<T>('POST', path, body);
export const remove = <T>(path: string) => call<T>('DELETE', path);

/** A running session as `/health` sends it: the seconds that count by themselves left out. */
export type RunningSession = Omit<Running, 'elapsedSeconds' | 'idleSeconds'>;

/** `/health`: the status of `ralph status --json`, and what the server says of itself. */
export type Health = Omit<StatusReport, 'running'> & {
  version: string;
  readOnly: boolean;
  running: RunningSession[];
};

export interface Item {
  id: string;
  title: string;
  status: string;
  priority: number;
  attempts: number;
  maxAttempts?: number;
  costUsd: number;
  lastOutcome?: string;
  lastError?: string;
  waiting?: string;
  dependsOn: string[];
  sessions: string[];
  updatedAt?: string;
}

/** `GET /night`: the last run at a glance. */
export interface Night {
  startedAt?: string;
  lastEndedAt?: string;
  sessions: number;
  done: number;
  failed: number;
  retried: number;
  costUsd: number;
  costEstimated: boolean;
  maxCostUsd?: number;
  budgetLeftUsd?: number;
  failures: {
    sessionId: string;
    itemId: string;
    outcome: string;
    message?: string;
    lastWords?: string;
  }[];
}

/** `GET /items/:id` with the fields of its page. */
export interface ItemDetail extends Item {
  body?: string;
  bodyFile?: string;
  cli?: string;
  agent?: string;
  workDir?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  timeout?: number;
  idleTimeout?: number;
  branch?: string;
  baseCommit?: string;
  gateFailure?: string;
  createdAt?: string;
  finishedAt?: string;
}

export interface SessionEntry {
  sessionId: string;
  itemId: string;
  itemTitle: string;
  status: string;
  outcome: string;
  message?: string;
  startedAt: string;
  durationMs?: number;
  turns?: number;
  toolCalls: number;
  costUsd: number;
  costEstimated?: boolean;
  cli: string;
  endedAt?: string;
}

export interface ReportGroup {
  key: string;
  sessions: number;
  done: number;
  retried: number;
  failed: number;
  interrupted: number;
  costUsd: number;
  costEstimated: boolean;
  seconds: number;
}

/** A parsed line of a session's stream, as the server sends it. */
export type StreamEvent = { kind: string; offset?: number; session?: string } & Record<
  string,
  unknown
>;
