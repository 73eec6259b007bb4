import { stripVTControlCharacters } from 'node:util';
import {
  Commits,
  Issues,
  IssueNotes,
  Jobs,
  MergeRequestApprovals,
  MergeRequestDiscussions,
  MergeRequestNotes,
  MergeRequests,
  PersonalAccessTokens,
  ProjectMembers,
  Projects,
  Users,
} from '@gitbeaker/rest';
import {
  ForgeError,
  GITLAB_ACCESS_LEVELS,
  commentMark,
  type ChecksVerdict,
  type FailedCheck,
  type Forge,
  type Issue,
  type IssueQuery,
  type PullRequest,
  type PullRequestMerge,
  type PullRequestRequest,
  type ReviewVerdict,
  type UpdateResult,
} from './forge.js';
import { GitLabRequestError, gitLabRequester, retryAfterSeconds } from './gitlab-requester.js';
import { pushBranch } from './push.js';

// GitLab's REST API (v4) through gitbeaker's resources: merge requests, their pipeline's jobs as
// the checks (a failed job's log handed back), approvals and reviewers, issues and their notes.
// A self-hosted instance under a path (`https://git.example/gitlab`) is its `apiUrl`.

/** Where the project is and how to reach it; the token itself, never its variable's value in text. */
export interface GitLabSettings {
  /** The instance's URL, with its path when it is served under one. */
  apiUrl: string;
  /** The project's path, `group/subgroup/name`. */
  project: string;
  /** The git remote branches are pushed to (its name). */
  remote: string;
  token: string;
  /** The variable the token came from, for messages. */
  tokenEnv: string;
  /** Retries of a server error (5xx). */
  retries?: number;
  /** The longest `Retry-After` waited out in place before a rate limit is said (seconds). */
  maxRetryAfterSeconds?: number;
  /** What one second of waiting is in ms (the tests shorten it). */
  secondMs?: number;
}

/** The level that may push to a project's branches. */
const DEVELOPER = GITLAB_ACCESS_LEVELS.DEVELOPER;

/** A job's states still on their way (a manual job waits for a person: it is not waited for). */
const RUNNING = new Set([
  'created',
  'pending',
  'running',
  'waiting_for_resource',
  'preparing',
  'scheduled',
  'waiting_for_callback',
]);

/** Lines of a failed job's log the agent is shown (its end, where the error is). */
const LOG_TAIL_LINES = 80;

/** The token's scopes that let ralph push merge requests and write notes; `read_api` reads. */
const WRITE_SCOPE = 'api';

interface GitLabMergeRequest {
  iid: number;
  web_url: string;
  sha: string;
  state: string;
  draft?: boolean;
  work_in_progress?: boolean;
  has_conflicts?: boolean;
  title: string;
}

interface GitLabStatus {
  id: number;
  name: string;
  status: string;
  allow_failure?: boolean;
  description?: string | null;
  target_url?: string | null;
}

interface GitLabIssue {
  iid: number;
  title: string;
  description?: string | null;
  web_url: string;
  state: string;
  author?: { id?: number; username?: string } | null;
  moved_to_id?: number | null;
  duplicated_to_id?: number | null;
}

/** A GitLab project's merge requests, pipelines and issues. */
export function gitLabForge(settings: GitLabSettings): Forge {
  return new GitLabForge(settings);
}

/** A job's log as a person reads it: colours and GitLab's section markers gone. */
export function plainLog(log: string): string {
  return stripVTControlCharacters(log)
    .replace(/section_(start|end):\d+:[\w.-]+(\[[^\]]*\])?\r?/g, '')
    .replace(/\r\n?/g, '\n');
}

/** GitLab through gitbeaker: a request's failure told as the setting to fix. */
class GitLabForge implements Forge {
  private readonly api;
  private readonly members = new Map<number, number>();

  constructor(private readonly settings: GitLabSettings) {
    const options = {
      host: settings.apiUrl.replace(/\/+$/, ''),
      token: settings.token,
      queryTimeout: 60_000,
      requesterFn: gitLabRequester({
        retries: settings.retries ?? 2,
        maxRetryAfterSeconds: settings.maxRetryAfterSeconds ?? 120,
        secondMs: settings.secondMs ?? 1000,
      }),
    };
    this.api = {
      projects: new Projects(options),
      mergeRequests: new MergeRequests(options),
      approvals: new MergeRequestApprovals(options),
      discussions: new MergeRequestDiscussions(options),
      mergeRequestNotes: new MergeRequestNotes(options),
      commits: new Commits(options),
      jobs: new Jobs(options),
      issues: new Issues(options),
      issueNotes: new IssueNotes(options),
      members: new ProjectMembers(options),
      users: new Users(options),
      tokens: new PersonalAccessTokens(options),
    };
  }

  private get project(): string {
    return this.settings.project;
  }

  /** A request, its failure told as a ForgeError that names the setting to fix. */
  private async call<T>(what: string, request: () => Promise<unknown>): Promise<T> {
    try {
      return (await request()) as T;
    } catch (error) {
      throw gitLabError(error, what, this.settings);
    }
  }

  async repository() {
    const project = await this.call<{
      path_with_namespace: string;
      default_branch?: string | null;
      permissions?: {
        project_access?: { access_level?: number } | null;
        group_access?: { access_level?: number } | null;
      };
    }>(`reading ${this.project}`, () => this.api.projects.show(this.project));
    const level = Math.max(
      project.permissions?.project_access?.access_level ?? 0,
      project.permissions?.group_access?.access_level ?? 0,
    );
    const scopes = await this.tokenScopes();
    return {
      name: project.path_with_namespace,
      defaultBranch: project.default_branch ?? 'main',
      canPush: level >= DEVELOPER,
      ...(scopes === undefined || scopes.includes(WRITE_SCOPE)
        ? {}
        : { lacks: `${WRITE_SCOPE} (it has ${scopes.join(', ') || 'none'})` }),
    };
  }

  /**
   * The scopes of the token: reading one's own token spends nothing. Undefined when the instance
   * does not say (a token of another kind: an OAuth or a job token).
   */
  private async tokenScopes(): Promise<string[] | undefined> {
    try {
      const token = (await this.api.tokens.show()) as { scopes?: string[] };
      return token.scopes;
    } catch (error) {
      if (error instanceof GitLabRequestError && [403, 404].includes(error.status))
        return undefined;
      throw gitLabError(error, 'reading the token', this.settings);
    }
  }

  push(repoDir: string, branch: string, lease?: string): Promise<void> {
    return pushBranch(repoDir, this.settings.remote, branch, lease);
  }

  async openPullRequest(request: PullRequestRequest): Promise<PullRequest> {
    const what = `opening the merge request of ${request.head} on ${this.project}`;
    const open = await this.call<GitLabMergeRequest[]>(what, () =>
      this.api.mergeRequests.all({
        projectId: this.project,
        sourceBranch: request.head,
        state: 'opened',
        perPage: 1,
        maxPages: 1,
      }),
    );
    const existing = open[0];
    if (existing !== undefined) {
      // A draft keeps its mark: GitLab takes a title without it as ready.
      const draft = existing.draft === true || existing.work_in_progress === true;
      const edited = await this.call<GitLabMergeRequest>(what, () =>
        this.api.mergeRequests.edit(this.project, existing.iid, {
          title: draft ? `Draft: ${request.title}` : request.title,
          description: request.body,
          targetBranch: request.base,
          ...(request.labels.length === 0 ? {} : { addLabels: request.labels.join(',') }),
        }),
      );
      return mergeRequestOf(edited);
    }
    const reviewerIds = await this.userIds(request.reviewers);
    const created = await this.call<GitLabMergeRequest>(what, () =>
      this.api.mergeRequests.create(
        this.project,
        request.head,
        request.base,
        request.draft ? `Draft: ${request.title}` : request.title,
        {
          description: request.body,
          ...(request.labels.length === 0 ? {} : { labels: request.labels.join(',') }),
          ...(reviewerIds.length === 0 ? {} : { reviewerIds }),
        },
      ),
    );
    return mergeRequestOf(created);
  }

  /** The ids of users by their usernames; one GitLab does not know is left out. */
  private async userIds(usernames: readonly string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const username of usernames) {
      const found = await this.call<{ id: number }[]>(`finding the user ${username}`, () =>
        this.api.users.all({ username }),
      );
      if (found[0] !== undefined) ids.push(found[0].id);
    }
    return ids;
  }

  async pullRequest(number: number): Promise<PullRequest> {
    return mergeRequestOf(
      await this.call<GitLabMergeRequest>(`reading merge request !${number}`, () =>
        this.api.mergeRequests.show(this.project, number),
      ),
    );
  }

  async reviews(pullRequest: number): Promise<ReviewVerdict> {
    const what = `reading the reviews of merge request !${pullRequest}`;
    const [approvals, reviewers] = await Promise.all([
      this.call<{ approved?: boolean; approved_by?: unknown[] }>(what, () =>
        this.api.approvals.showConfiguration(this.project, { mergerequestIId: pullRequest }),
      ),
      this.call<{ user?: { username?: string } | null; state?: string }[]>(what, () =>
        this.api.mergeRequests.showReviewers(this.project, pullRequest),
      ),
    ]);
    const requested = reviewers.filter((r) => r.state === 'requested_changes');
    const threads =
      requested.length === 0
        ? []
        : await this.call<GitLabDiscussion[]>(what, () =>
            this.api.discussions.all(this.project, pullRequest),
          );
    return {
      approved:
        requested.length === 0 &&
        (approvals.approved === true ||
          (approvals.approved_by ?? []).length > 0 ||
          reviewers.some((r) => r.state === 'approved')),
      changesRequested: requested.map((r) => {
        const reviewer = r.user?.username ?? 'a reviewer';
        return { reviewer, body: '', comments: openThreadsOf(threads, reviewer) };
      }),
    };
  }

  async updateBranch(pullRequest: number): Promise<UpdateResult> {
    const what = `rebasing merge request !${pullRequest}`;
    const request = await this.call<GitLabMergeRequest>(what, () =>
      this.api.mergeRequests.show(this.project, pullRequest),
    );
    if (request.has_conflicts === true) return 'conflict';
    try {
      // GitLab rebases in the background; the next look reads the new head.
      await this.api.mergeRequests.rebase(this.project, pullRequest);
      return 'updated';
    } catch (error) {
      // 409: a rebase is under way already.
      if (error instanceof GitLabRequestError && error.status === 409) return 'updated';
      throw gitLabError(error, what, this.settings);
    }
  }

  async checks(sha: string, required?: readonly string[]): Promise<ChecksVerdict> {
    const statuses = await this.call<GitLabStatus[]>(
      `reading the pipeline of ${sha.slice(0, 12)} on ${this.project}`,
      () => this.api.commits.allStatuses(this.project, sha, { all: false }),
    );
    const counted = (name: string) =>
      required === undefined || required.length === 0 || required.includes(name);
    const jobs = statuses.filter((job) => counted(job.name));
    const failed = jobs.filter(
      (job) => (job.status === 'failed' && job.allow_failure !== true) || job.status === 'canceled',
    );
    if (failed.length > 0)
      return {
        state: 'failure',
        failed: await Promise.all(failed.map((job) => this.failedJob(job))),
      };
    const reported = jobs.map((job) => job.name);
    const waitingFor = [
      ...jobs
        .filter(
          (job) =>
            RUNNING.has(job.status) ||
            (job.status === 'manual' && (required ?? []).includes(job.name)),
        )
        .map((job) => job.name),
      ...(required ?? []).filter((name) => !reported.includes(name)),
    ];
    if (waitingFor.length > 0 || reported.length === 0) return { state: 'pending', waitingFor };
    return { state: 'success', passed: reported };
  }

  private async failedJob(job: GitLabStatus): Promise<FailedCheck> {
    return {
      name: job.name,
      summary: `${job.status}${job.description ? `: ${job.description}` : ''}`,
      annotations: [],
      ...(job.target_url ? { detailsUrl: job.target_url } : {}),
      ...(await this.logTail(job.id).then((tail) => (tail === undefined ? {} : { logTail: tail }))),
    };
  }

  /** The end of a job's log; none for a status of another CI, or a log the token may not read. */
  private async logTail(job: number): Promise<string | undefined> {
    try {
      const log = await this.api.jobs.showLog(this.project, job);
      const text = plainLog(typeof log === 'string' ? log : '').trimEnd();
      return text === '' ? undefined : text.split('\n').slice(-LOG_TAIL_LINES).join('\n');
    } catch {
      return undefined;
    }
  }

  async comment(pullRequest: number, body: string): Promise<void> {
    await this.call(`commenting on merge request !${pullRequest}`, () =>
      this.api.mergeRequestNotes.create(this.project, pullRequest, body),
    );
  }

  async commentOnIssue(issue: number, body: string, mark: string): Promise<void> {
    const what = `commenting on issue #${issue} of ${this.project}`;
    const tag = commentMark(mark);
    // A note made before a crash kept its record from being written is not made again.
    const notes = await this.call<{ body?: string | null }[]>(what, () =>
      this.api.issueNotes.all(this.project, issue, { perPage: 100 }),
    );
    if (notes.some((note) => note.body?.includes(tag) === true)) return;
    await this.call(what, () =>
      this.api.issueNotes.create(this.project, issue, `${body}\n\n${tag}`),
    );
  }

  async issues(query: IssueQuery): Promise<Issue[]> {
    const issues = await this.call<GitLabIssue[]>(`listing the issues of ${this.project}`, () =>
      this.api.issues.all({
        projectId: this.project,
        state: 'opened',
        perPage: 100,
        ...(query.label === undefined ? {} : { labels: query.label }),
        ...(query.milestone === undefined ? {} : { milestone: query.milestone }),
        ...(query.assignee === undefined ? {} : { assigneeUsername: [query.assignee] }),
      }),
    );
    return Promise.all(issues.map((issue) => this.issueOf(issue)));
  }

  async issue(number: number): Promise<Issue> {
    const issue = await this.call<GitLabIssue>(`reading issue #${number} of ${this.project}`, () =>
      this.api.issues.show(number, { projectId: this.project }),
    );
    return this.issueOf(issue);
  }

  /** An issue with its author's access level in the project (inherited from its groups too). */
  private async issueOf(issue: GitLabIssue): Promise<Issue> {
    const author = issue.author?.id;
    const level = author === undefined ? undefined : await this.accessLevelOf(author);
    return {
      number: issue.iid,
      title: issue.title,
      body: issue.description ?? '',
      url: issue.web_url,
      state: issue.state === 'opened' ? 'open' : 'closed',
      ...(issue.state === 'opened'
        ? {}
        : {
            closedAs:
              issue.moved_to_id != null || issue.duplicated_to_id != null
                ? ('not_planned' as const)
                : ('completed' as const),
          }),
      ...(issue.author?.username === undefined ? {} : { author: issue.author.username }),
      ...(level === undefined
        ? {}
        : { authorAccessLevel: level, authorAssociation: accessLevelName(level) }),
    };
  }

  private async accessLevelOf(user: number): Promise<number> {
    const known = this.members.get(user);
    if (known !== undefined) return known;
    let level: number;
    try {
      const member = (await this.api.members.show(this.project, user, {
        includeInherited: true,
      })) as { access_level?: number };
      level = member.access_level ?? 0;
    } catch (error) {
      // Not a member: no standing in the project.
      if (!(error instanceof GitLabRequestError && error.status === 404))
        throw gitLabError(error, `reading the members of ${this.project}`, this.settings);
      level = 0;
    }
    this.members.set(user, level);
    return level;
  }

  async closePullRequest(pullRequest: number): Promise<void> {
    await this.call(`closing merge request !${pullRequest}`, () =>
      this.api.mergeRequests.edit(this.project, pullRequest, { stateEvent: 'close' }),
    );
  }

  async merge(
    pullRequest: number,
    method: 'merge' | 'squash' | 'rebase',
    sha: string,
  ): Promise<PullRequestMerge> {
    try {
      // The project's merge method decides merge commit, semi-linear or fast-forward.
      await this.api.mergeRequests.accept(this.project, pullRequest, {
        sha,
        ...(method === 'squash' ? { squash: true } : {}),
      });
      return 'merged';
    } catch (error) {
      // 405/406: not mergeable as it is (behind a fast-forward-only base, conflicts); 409: its
      // head is not `sha` any more.
      if (error instanceof GitLabRequestError && [405, 406, 409].includes(error.status))
        return 'base_moved';
      throw gitLabError(error, `merging merge request !${pullRequest}`, this.settings);
    }
  }
}

interface GitLabDiscussion {
  notes?: {
    author?: { username?: string } | null;
    body?: string;
    resolvable?: boolean;
    resolved?: boolean;
    position?: { new_path?: string | null; new_line?: number | null } | null;
  }[];
}

/** A reviewer's unresolved threads, as `file:line: text`. */
function openThreadsOf(threads: readonly GitLabDiscussion[], reviewer: string): string[] {
  return threads.flatMap((thread) => {
    const first = thread.notes?.[0];
    if (first === undefined || first.author?.username !== reviewer) return [];
    if (first.resolvable !== true || first.resolved === true) return [];
    const where = first.position?.new_path;
    const line = first.position?.new_line;
    return [
      `${where ?? '(the merge request)'}${line == null ? '' : `:${line}`}: ${first.body ?? ''}`,
    ];
  });
}

function mergeRequestOf(request: GitLabMergeRequest): PullRequest {
  return {
    number: request.iid,
    url: request.web_url,
    headSha: request.sha,
    state: request.state === 'merged' ? 'merged' : request.state === 'opened' ? 'open' : 'closed',
    draft: request.draft === true || request.work_in_progress === true,
  };
}

/** An access level's name (DEVELOPER…), the nearest below for a level between two. */
export function accessLevelName(level: number): string {
  const named = Object.entries(GITLAB_ACCESS_LEVELS).filter(([, value]) => value <= level);
  return named.at(-1)?.[0] ?? 'NONE';
}

/** A failed request as people read it: what was being done, why, and the setting to look at. */
function gitLabError(error: unknown, what: string, settings: GitLabSettings): ForgeError {
  if (!(error instanceof GitLabRequestError))
    return new ForgeError(
      'unavailable',
      `${what}: GitLab cannot be reached at ${settings.apiUrl} (forge.apiUrl; ${error instanceof Error ? error.message : String(error)})`,
    );
  const { status, description } = error;
  const because = description === '' ? '' : `: ${description}`;
  if (status === 401)
    return new ForgeError(
      'auth',
      `${what}: GitLab refused the token in ${settings.tokenEnv} (401${because}); set ${settings.tokenEnv} to a token with the "${WRITE_SCOPE}" scope on ${settings.project}`,
    );
  if (status === 429) {
    const wait = retryAfterSeconds(error.headers, Date.now());
    return new ForgeError(
      'rate_limited',
      `${what}: GitLab's rate limit is reached (429); asked again ${wait === undefined ? 'later' : `in ${Math.ceil(wait)} s`}`,
    );
  }
  if (status === 403)
    return new ForgeError(
      'auth',
      `${what}: the token in ${settings.tokenEnv} lacks a scope or a role on ${settings.project} (403${because}): it needs the "${WRITE_SCOPE}" scope and the Developer role`,
    );
  if (status === 404)
    return new ForgeError(
      'not_found',
      `${what}: GitLab at ${settings.apiUrl} has no ${settings.project} (404), or the token in ${settings.tokenEnv} cannot see it: check forge.repo and forge.apiUrl`,
    );
  if (status >= 400 && status < 500)
    return new ForgeError('refused', `${what}: GitLab refused it (${status}${because})`);
  return new ForgeError(
    'unavailable',
    `${what}: GitLab at ${settings.apiUrl} failed (forge.apiUrl; ${status}${because})`,
  );
}
