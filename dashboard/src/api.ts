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

export interface RunningSession {
  itemId: string;
  itemTitle: string;
  sessionId: string;
  status: string;
  startedAt: string;
  lastActivityAt?: string;
  assistantMessages: number;
  toolCalls: number;
  lastTool?: string;
  costUsd?: number;
  limits?: { timeoutSeconds: number; idleTimeoutSeconds: number; maxBudgetUsd: number };
  branch?: string;
}

export interface Health {
  version: string;
  readOnly: boolean;
  root: string;
  runner?: { pid: number; startedAt: string };
  paused?: { reason: string };
  pauseAfterCurrent?: { reason: string };
  waiting?: { until: string; reason: string; event: string };
  queue: Record<string, number>;
  queueVersion: number;
  /** Every running session, oldest first (several with `--workers`). */
  running: RunningSession[];
  budget: {
    run?: { startedAt: string; costUsd: number; iterations: number; maxCostUsd?: number };
    totalCostUsd: number;
    iterations: number;
  };
}

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
}

export interface ReportGroup {
  key: string;
  sessions: number;
  done: number;
  failed: number;
  interrupted: number;
  costUsd: number;
  seconds: number;
}

/** A parsed line of a session's stream, as the server sends it. */
export type StreamEvent = { kind: string; offset?: number; session?: string } & Record<
  string,
  unknown
>;
