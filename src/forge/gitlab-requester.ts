import { createRequesterFn, getMatchingRateLimiter } from '@gitbeaker/requester-utils';
import { setTimeout as delay } from 'node:timers/promises';

// The requests of gitbeaker's resources, made by ralph: its own rate limiters (GitLab.com's
// limits per endpoint) are kept, a server's 5xx is tried again a few times with growing waits,
// and a 429 waits out GitLab's `Retry-After` (or `RateLimit-Reset`) once when it is short; a
// longer one is said, and the caller waits. gitbeaker's own handler retries a 429 at once, ten
// times in a few milliseconds, whatever GitLab asked.

/** How a GitLab request is tried again. */
export interface RetryPolicy {
  /** Retries of a server error (5xx). */
  retries: number;
  /** The longest `Retry-After` waited out in place (seconds). */
  maxRetryAfterSeconds: number;
  /** What one second of waiting is in ms (the tests shorten it). */
  secondMs: number;
}

/** A request GitLab refused or failed: its status, headers and its own words. */
export class GitLabRequestError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly description: string,
  ) {
    super(`GitLab answered ${status}${description === '' ? '' : `: ${description}`}`);
    this.name = 'GitLabRequestError';
  }
}

interface RequestOptions {
  prefixUrl: string;
  searchParams?: string;
  method: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  signal?: AbortSignal;
  asStream?: boolean;
  rateLimiters?: Record<string, unknown>;
}

/** GitLab's words of a refusal: its JSON `message` or `error`, or its text. */
async function descriptionOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  if (!(response.headers.get('content-type') ?? '').includes('json')) return text.slice(0, 300);
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
    const said = parsed.message ?? parsed.error ?? '';
    return (typeof said === 'string' ? said : JSON.stringify(said)).slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

async function bodyOf(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (type === 'application/json') return (await response.json()) ?? {};
  if (type.startsWith('text/')) return response.text();
  return response.blob();
}

/** The seconds GitLab asks to be left alone for, from its headers. */
export function retryAfterSeconds(
  headers: Readonly<Record<string, string>>,
  now: number,
): number | undefined {
  const after = Number(headers['retry-after']);
  if (Number.isFinite(after) && after >= 0) return after;
  const reset = Number(headers['ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset - now / 1000) : undefined;
}

function handlerOf(policy: RetryPolicy) {
  return async (endpoint: string, options?: Record<string, unknown>) => {
    const { prefixUrl, searchParams, method, headers, body, signal, asStream, rateLimiters } =
      options as unknown as RequestOptions;
    const limit = getMatchingRateLimiter(
      endpoint,
      rateLimiters as Parameters<typeof getMatchingRateLimiter>[1],
      method,
    );
    const url = new URL(endpoint, prefixUrl.endsWith('/') ? prefixUrl : `${prefixUrl}/`);
    url.search = searchParams ?? '';
    for (let attempt = 0; ; attempt++) {
      await limit();
      const response = await fetch(url, { method, headers, body, signal });
      if (response.ok)
        return {
          status: response.status,
          headers: Object.fromEntries(response.headers.entries()),
          body: asStream === true ? response.body : await bodyOf(response),
        };
      const said = Object.fromEntries(response.headers.entries());
      const error = new GitLabRequestError(response.status, said, await descriptionOf(response));
      if (response.status === 429) {
        const wait = retryAfterSeconds(said, Date.now());
        if (attempt > 0 || wait === undefined || wait > policy.maxRetryAfterSeconds) throw error;
        await delay(wait * policy.secondMs);
      } else if (response.status >= 500 && attempt < policy.retries)
        await delay(2 ** attempt * 0.25 * policy.secondMs);
      else throw error;
    }
  };
}

/** gitbeaker's requester, its requests made as above. */
export function gitLabRequester(policy: RetryPolicy) {
  return createRequesterFn(
    (_, options) => Promise.resolve(options),
    handlerOf(policy) as unknown as Parameters<typeof createRequesterFn>[1],
  );
}
