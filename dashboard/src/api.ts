/** Calls of the ralph API; the browser sends the server's HttpOnly cookie with each. */
import type { SessionStreamEvent } from '../../src/server/api-types.js';

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

export type {
  Decided,
  Diff,
  Health,
  HealthSession as RunningSession,
  ItemDetail,
  Items,
  ListedItem as Item,
  NightReport,
  Report,
  ReportGroup,
  Review,
  ReviewPage,
  ReviewRow,
  ProposedRule,
  RuleDecided,
  Rules,
  SessionEntry,
  SessionEvents,
  SessionRecordAnswer as SessionRecord,
} from '../../src/server/api-types.js';

/**
 * A parsed line of a session's stream, as a page sends it (`offset`) or the night's events
 * (`session`, `item`).
 */
/** An event of a session as the dashboard shows it, with where it came from. */
export type ShownEvent = SessionStreamEvent & { offset?: number; session?: string; item?: string };
