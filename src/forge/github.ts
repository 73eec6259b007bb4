import { Octokit } from '@octokit/core';
import Bottleneck from 'bottleneck';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { pushBranch } from './push.js';
import {
  ForgeError,
  type ChecksVerdict,
  type FailedCheck,
  type Forge,
  type Issue,
  type IssueQuery,
  type PullRequestMerge,
  type PullRequest,
  type PullRequestRequest,
  type ReviewVerdict,
  type UpdateResult,
  commentMark,
} from './forge.js';

// GitHub's REST API through Octokit: its retry plugin for a server's 5xx, its throttling
// plugin for the rate limits (it waits out `Retry-After` and the reset the headers give, and
// spaces writes as GitHub asks). Checks are polled with conditional requests: an unchanged
// answer is a 304, which GitHub does not count against the rate limit.

const GitHubClient = Octokit.plugin(retry, throttling);

/** Where the repository is and how to reach it; the token itself, never its variable's value in text. */
export interface GitHubSettings {
  apiUrl: string;
  /** `owner/name`. */
  repo: string;
  /** The git remote branches are pushed to (its name). */
  remote: string;
  token: string;
  /** The variable the token came from, for messages. */
  tokenEnv: string;
  /** The longest `Retry-After` waited out in place before a rate limit is said (seconds). */
  maxRetryAfterSeconds?: number;
  /** Retries of a server error (5xx), with Octokit's growing waits. */
  retries?: number;
  /** What one second of `Retry-After` is in ms (the tests shorten it). */
  retryAfterUnitMs?: number;
  /** The least time between two writes (GitHub asks for a second; `forge.writeInterval`). */
  writeIntervalMs?: number;
}

/** Conclusions of a completed check run that fail it. */
const FAILING = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'stale']);

/** Annotations of a failed check that are read. */
const ANNOTATIONS_READ = 20;

/** Lines of a failing job's log the agent is shown (its end, where the error is). */
const LOG_TAIL_LINES = 80;

interface Cached {
  etag: string;
  data: unknown;
}

interface CheckRun {
  id: number;
  app?: { slug?: string } | null;
  name: string;
  status: string;
  conclusion: string | null;
  details_url?: string | null;
  output?: { title?: string | null; summary?: string | null };
}

interface CommitStatus {
  context: string;
  state: string;
  description?: string | null;
  target_url?: string | null;
}

/** A GitHub repository's pull requests and checks. */
export function gitHubForge(settings: GitHubSettings): Forge {
  return new GitHubForge(settings);
}

/** GitHub through Octokit: retries, rate limits, conditional reads, spaced writes. */
class GitHubForge implements Forge {
  private readonly owner: string;
  private readonly repo: string;
  private readonly octokit: InstanceType<typeof GitHubClient>;
  private readonly cache: ConditionalReads;

  constructor(private readonly settings: GitHubSettings) {
    const [owner = '', repo = ''] = settings.repo.split('/');
    this.owner = owner;
    this.repo = repo;
    const maxWait = settings.maxRetryAfterSeconds ?? 120;
    const writeMs = settings.writeIntervalMs ?? 1000;
    this.octokit = new GitHubClient({
      auth: settings.token,
      baseUrl: settings.apiUrl.replace(/\/+$/, ''),
      userAgent: 'ralph',
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      // A refusal is an answer, not a fault: only a server's 5xx and the network are retried.
      retry: {
        retries: settings.retries ?? 2,
        doNotRetry: [400, 401, 403, 404, 405, 409, 410, 422, 429, 451],
      },
      throttle: {
        retryAfterBaseValue: settings.retryAfterUnitMs ?? 1000,
        // Octokit's spacing of writes, and thrice that for those that notify people (a new pull
        // request, a comment), as GitHub asks; a test's fake GitHub shortens them.
        write: new Bottleneck.Group({ maxConcurrent: 1, minTime: writeMs }),
        notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: writeMs * 3 }),
        // Waited out in place once when short; a longer wait is said, and the caller waits.
        onRateLimit: (
          retryAfter: number,
          _options: unknown,
          _octokit: unknown,
          retryCount: number,
        ) => retryCount === 0 && retryAfter <= maxWait,
        onSecondaryRateLimit: (
          retryAfter: number,
          _options: unknown,
          _octokit: unknown,
          retryCount: number,
        ) => retryCount === 0 && retryAfter <= maxWait,
      },
    });
    this.cache = new ConditionalReads(this.octokit);
  }

  /** A request, its failure told as a ForgeError that names the setting to fix. */
  private async call<T>(what: string, route: string, params: Record<string, unknown>): Promise<T> {
    try {
      const response = await this.octokit.request(route, {
        owner: this.owner,
        repo: this.repo,
        ...params,
      });
      return response.data as T;
    } catch (error) {
      throw forgeError(error, what, this.settings);
    }
  }

  /** The number of the milestone with this title (open or closed). */
  private async milestoneNumber(title: string): Promise<string> {
    const milestones = await this.call<{ number: number; title: string }[]>(
      'listing milestones',
      'GET /repos/{owner}/{repo}/milestones',
      { state: 'all', per_page: 100 },
    );
    const found = milestones.find((m) => m.title === title);
    if (found === undefined)
      throw new ForgeError(
        'not_found',
        `${this.settings.repo} has no milestone titled ${JSON.stringify(title)}`,
      );
    return String(found.number);
  }

  /** A GET asked with the ETag of its last answer: an unchanged one comes back as a 304. */
  private conditional<T>(
    route: string,
    params: Record<string, unknown>,
    what = `reading the checks of ${this.settings.repo}`,
  ): Promise<T> {
    return this.cache.read<T>(route, { owner: this.owner, repo: this.repo, ...params }, (error) =>
      forgeError(error, what, this.settings),
    );
  }

  private async failedCheck(run: CheckRun): Promise<FailedCheck> {
    const annotations = await this.call<
      { path: string; start_line: number; annotation_level: string; message: string }[]
    >(
      `reading the annotations of the check "${run.name}"`,
      'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
      {
        check_run_id: run.id,
        per_page: ANNOTATIONS_READ,
      },
    ).catch(() => []);
    const summary = [run.output?.title, run.output?.summary].filter((t) => t).join('\n');
    return {
      name: run.name,
      summary: summary === '' ? undefined : summary,
      annotations: annotations.map(
        (a) => `${a.path}:${a.start_line}: ${a.annotation_level}: ${a.message}`,
      ),
      detailsUrl: run.details_url ?? undefined,
      logTail: await this.logTail(run),
    };
  }

  /** The end of an Actions job's log (a check run of Actions is its job); none elsewhere. */
  private async logTail(run: CheckRun): Promise<string | undefined> {
    if (run.app?.slug !== undefined && run.app.slug !== 'github-actions') return undefined;
    try {
      const response = await this.octokit.request(
        'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
        {
          owner: this.owner,
          repo: this.repo,
          job_id: run.id,
        },
      );
      const text = typeof response.data === 'string' ? response.data : '';
      const lines = text.trimEnd().split('\n');
      return text === '' ? undefined : lines.slice(-LOG_TAIL_LINES).join('\n');
    } catch {
      // Logs expire, and a token may not read them: the check's summary is still told.
      return undefined;
    }
  }

  /** A review's comments, as `file:line: text`. */
  private async reviewComments(pullRequest: number, review: number): Promise<string[]> {
    const comments = await this.call<{ path: string; line?: number | null; body: string }[]>(
      `reading the comments of a review of pull request #${pullRequest}`,
      'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments',
      { pull_number: pullRequest, review_id: review, per_page: 50 },
    );
    return comments.map((c) => `${c.path}${c.line == null ? '' : `:${c.line}`}: ${c.body}`);
  }

  async repository() {
    const repository = await this.call<{
      full_name: string;
      default_branch: string;
      permissions?: { push?: boolean };
    }>(`reading ${this.settings.repo}`, 'GET /repos/{owner}/{repo}', {});
    return {
      name: repository.full_name,
      defaultBranch: repository.default_branch,
      canPush: repository.permissions?.push === true,
    };
  }

  push(repoDir: string, branch: string, lease?: string): Promise<void> {
    return pushBranch(repoDir, this.settings.remote, branch, lease);
  }

  async pullRequest(number: number): Promise<PullRequest> {
    return pullOf(
      await this.conditional<GitHubPull>(
        'GET /repos/{owner}/{repo}/pulls/{pull_number}',
        { pull_number: number },
        `reading pull request #${number}`,
      ),
    );
  }

  async reviews(pullRequest: number): Promise<ReviewVerdict> {
    const reviews = await this.conditional<
      { id: number; user?: { login?: string } | null; state: string; body?: string | null }[]
    >(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
      { pull_number: pullRequest, per_page: 100 },
      `reading the reviews of pull request #${pullRequest}`,
    );
    // Each reviewer's latest say; a comment alone changes nothing.
    const latest = new Map<string, (typeof reviews)[number]>();
    for (const review of reviews)
      if (['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'].includes(review.state))
        latest.set(review.user?.login ?? '', review);
    const said = [...latest.values()];
    const requested = said.filter((r) => r.state === 'CHANGES_REQUESTED');
    return {
      approved: requested.length === 0 && said.some((r) => r.state === 'APPROVED'),
      changesRequested: await Promise.all(
        requested.map(async (r) => ({
          reviewer: r.user?.login ?? 'a reviewer',
          body: r.body ?? '',
          comments: await this.reviewComments(pullRequest, r.id),
        })),
      ),
    };
  }

  async updateBranch(pullRequest: number, headSha: string): Promise<UpdateResult> {
    try {
      await this.octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch', {
        owner: this.owner,
        repo: this.repo,
        pull_number: pullRequest,
        expected_head_sha: headSha,
      });
      return 'updated';
    } catch (error) {
      // 422: the base cannot be merged into it without conflicts (or its head moved).
      if (statusOf(error) === 422) return 'conflict';
      throw forgeError(error, `updating the branch of pull request #${pullRequest}`, this.settings);
    }
  }

  async openPullRequest(request: PullRequestRequest): Promise<PullRequest> {
    const what = `opening the pull request of ${request.head} on ${this.settings.repo}`;
    const open = await this.call<GitHubPull[]>(what, 'GET /repos/{owner}/{repo}/pulls', {
      head: `${this.owner}:${request.head}`,
      state: 'open',
      per_page: 1,
    });
    const existing = open[0];
    const pull =
      existing === undefined
        ? await this.call<GitHubPull>(what, 'POST /repos/{owner}/{repo}/pulls', {
            head: request.head,
            base: request.base,
            title: request.title,
            body: request.body,
            draft: request.draft,
          })
        : await this.call<GitHubPull>(what, 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
            pull_number: existing.number,
            title: request.title,
            body: request.body,
            base: request.base,
          });
    if (request.labels.length > 0)
      await this.call(what, 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        issue_number: pull.number,
        labels: request.labels,
      });
    if (existing === undefined && request.reviewers.length > 0)
      await this.call(what, 'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', {
        pull_number: pull.number,
        reviewers: request.reviewers,
      });
    return pullOf(pull);
  }

  async checks(sha: string, required?: readonly string[]): Promise<ChecksVerdict> {
    const [runs, combined] = await Promise.all([
      this.conditional<{ check_runs: CheckRun[] }>(
        'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
        {
          ref: sha,
          per_page: 100,
        },
      ),
      this.conditional<{ statuses: CommitStatus[] }>(
        'GET /repos/{owner}/{repo}/commits/{ref}/status',
        {
          ref: sha,
          per_page: 100,
        },
      ),
    ]);
    const counted = (name: string) =>
      required === undefined || required.length === 0 || required.includes(name);
    const checkRuns = runs.check_runs.filter((run) => counted(run.name));
    const statuses = combined.statuses.filter((status) => counted(status.context));
    const failedRuns = checkRuns.filter(
      (run) => run.status === 'completed' && FAILING.has(run.conclusion ?? ''),
    );
    const failedStatuses = statuses.filter((s) => s.state === 'failure' || s.state === 'error');
    if (failedRuns.length > 0 || failedStatuses.length > 0)
      return {
        state: 'failure',
        failed: [
          ...(await Promise.all(failedRuns.map((run) => this.failedCheck(run)))),
          ...failedStatuses.map((s) => ({
            name: s.context,
            summary: s.description ?? undefined,
            annotations: [],
            detailsUrl: s.target_url ?? undefined,
          })),
        ],
      };
    const reported = [...checkRuns.map((run) => run.name), ...statuses.map((s) => s.context)];
    const waitingFor = [
      ...checkRuns.filter((run) => run.status !== 'completed').map((run) => run.name),
      ...statuses.filter((s) => s.state === 'pending').map((s) => s.context),
      // A required check not reported yet is waited for.
      ...(required ?? []).filter((name) => !reported.includes(name)),
    ];
    if (waitingFor.length > 0 || reported.length === 0) return { state: 'pending', waitingFor };
    return { state: 'success', passed: reported };
  }

  async comment(pullRequest: number, body: string): Promise<void> {
    await this.call(
      `commenting on #${pullRequest}`,
      'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
      {
        issue_number: pullRequest,
        body,
      },
    );
  }

  async commentOnIssue(issue: number, body: string, mark: string): Promise<void> {
    const what = `commenting on #${issue}`;
    const tag = commentMark(mark);
    // A comment made before a crash kept its record from being written is not made again.
    for (let page = 1; ; page++) {
      const said = await this.call<{ body?: string | null }[]>(
        what,
        'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        { issue_number: issue, per_page: 100, page },
      );
      if (said.some((comment) => comment.body?.includes(tag) === true)) return;
      if (said.length < 100) break;
    }
    await this.comment(issue, `${body}\n\n${tag}`);
  }

  async issues(query: IssueQuery): Promise<Issue[]> {
    const milestone =
      query.milestone === undefined || /^\d+$/.test(query.milestone)
        ? query.milestone
        : await this.milestoneNumber(query.milestone);
    const found: Issue[] = [];
    // Pages of a hundred, the most GitHub gives, until one comes back short.
    for (let page = 1; ; page++) {
      const batch = await this.call<GitHubIssue[]>(
        'listing issues',
        'GET /repos/{owner}/{repo}/issues',
        {
          state: 'open',
          per_page: 100,
          page,
          ...(query.label === undefined ? {} : { labels: query.label }),
          ...(milestone === undefined ? {} : { milestone }),
          ...(query.assignee === undefined ? {} : { assignee: query.assignee }),
        },
      );
      found.push(...batch.filter((i) => i.pull_request === undefined).map(issueOf));
      if (batch.length < 100) return found;
    }
  }

  async issue(number: number): Promise<Issue> {
    return issueOf(
      await this.call<GitHubIssue>(
        `reading issue #${number}`,
        'GET /repos/{owner}/{repo}/issues/{issue_number}',
        {
          issue_number: number,
        },
      ),
    );
  }

  async closePullRequest(pullRequest: number): Promise<void> {
    await this.call(
      `closing pull request #${pullRequest}`,
      'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
      { pull_number: pullRequest, state: 'closed' },
    );
  }

  async merge(
    pullRequest: number,
    method: 'merge' | 'squash' | 'rebase',
    sha: string,
  ): Promise<PullRequestMerge> {
    try {
      await this.octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
        owner: this.owner,
        repo: this.repo,
        pull_number: pullRequest,
        merge_method: method,
        sha,
      });
      return 'merged';
    } catch (error) {
      // 405: not mergeable as it is (its base moved on); 409: its head is not `sha` any more.
      const status = statusOf(error);
      if (status === 405 || status === 409) return 'base_moved';
      throw forgeError(error, `merging pull request #${pullRequest}`, this.settings);
    }
  }
}

interface GitHubPull {
  number: number;
  html_url: string;
  state: string;
  draft?: boolean;
  merged_at?: string | null;
  head: { sha: string };
}

interface GitHubIssue {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  state: string;
  state_reason?: string | null;
  user?: { login?: string } | null;
  author_association?: string;
  pull_request?: unknown;
}

function issueOf(issue: GitHubIssue): Issue {
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body ?? '',
    url: issue.html_url,
    state: issue.state === 'open' ? 'open' : 'closed',
    ...(issue.state === 'open'
      ? {}
      : {
          // Closed with no reason (before GitHub gave one) is closed as done.
          closedAs: ['not_planned', 'duplicate'].includes(issue.state_reason ?? '')
            ? ('not_planned' as const)
            : ('completed' as const),
        }),
    author: issue.user?.login ?? undefined,
    ...(issue.author_association === undefined
      ? {}
      : { authorAssociation: issue.author_association }),
  };
}

function pullOf(pull: GitHubPull): PullRequest {
  return {
    number: pull.number,
    url: pull.html_url,
    headSha: pull.head.sha,
    state: pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
    draft: pull.draft === true,
  };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function headerOf(error: unknown, name: string): string | undefined {
  const headers = (error as { response?: { headers?: Record<string, unknown> } } | null)?.response
    ?.headers;
  const value = headers?.[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** GitHub's own words of a refusal (its JSON `message`), never the request (it holds the token). */
function gitHubMessage(error: unknown): string {
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  const message = (data as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : '';
}

/** A failed request as people read it: what was being done, why, and the setting to look at. */
function forgeError(error: unknown, what: string, settings: GitHubSettings): ForgeError {
  const status = statusOf(error);
  const said = gitHubMessage(error);
  const because = said === '' ? '' : `: ${said}`;
  if (status === 401)
    return new ForgeError(
      'auth',
      `${what}: GitHub refused the token in ${settings.tokenEnv} (401${because}); set ${settings.tokenEnv} to a token that can read and write ${settings.repo}`,
    );
  if (
    (status === 403 || status === 429) &&
    (headerOf(error, 'x-ratelimit-remaining') === '0' ||
      headerOf(error, 'retry-after') !== undefined)
  ) {
    const reset = Number(headerOf(error, 'x-ratelimit-reset'));
    const after = Number(headerOf(error, 'retry-after'));
    const until =
      Number.isFinite(after) && after > 0
        ? `in ${after} s`
        : Number.isFinite(reset) && reset > 0
          ? `at ${new Date(reset * 1000).toISOString()}`
          : 'later';
    return new ForgeError(
      'rate_limited',
      `${what}: GitHub's rate limit is reached (${status}); asked again ${until}`,
    );
  }
  if (status === 403)
    return new ForgeError(
      'auth',
      `${what}: the token in ${settings.tokenEnv} lacks a permission on ${settings.repo} (403${because})`,
    );
  if (status === 404)
    return new ForgeError(
      'not_found',
      `${what}: GitHub has no ${settings.repo} (404), or the token in ${settings.tokenEnv} cannot see it: check forge.repo`,
    );
  if (status !== undefined && status >= 400 && status < 500)
    return new ForgeError('refused', `${what}: GitHub refused it (${status}${because})`);
  return new ForgeError(
    'unavailable',
    `${what}: GitHub cannot be reached at ${settings.apiUrl} (forge.apiUrl; ${status ?? (error instanceof Error ? error.message : String(error))})`,
  );
}

/**
 * Conditional GETs: the last answer of each, with its ETag, given again when GitHub says it is
 * unchanged (a 304 costs no rate limit).
 */
class ConditionalReads {
  private readonly answers = new Map<string, Cached>();

  constructor(private readonly octokit: InstanceType<typeof GitHubClient>) {}

  async read<T>(
    route: string,
    params: Record<string, unknown>,
    failed: (error: unknown) => Error,
  ): Promise<T> {
    const key = `${route} ${JSON.stringify(params)}`;
    const cached = this.answers.get(key);
    try {
      const response = await this.octokit.request(route, {
        ...params,
        headers: cached === undefined ? {} : { 'if-none-match': cached.etag },
      });
      const etag = response.headers.etag;
      if (etag !== undefined) this.answers.set(key, { etag, data: response.data });
      return response.data as T;
    } catch (error) {
      if (statusOf(error) === 304 && cached !== undefined) return cached.data as T;
      throw failed(error);
    }
  }
}
