// The forge a night's branches go to: pull requests, their checks, comments, merges. What the
// runner needs of any forge (GitHub's pull requests and checks, GitLab's merge requests and
// pipelines), nothing of how one answers.

/** A pull request as the forge has it. */
export interface PullRequest {
  number: number;
  url: string;
  /** The commit its head branch is at. */
  headSha: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
}

/** What reviewers said of a pull request: their latest review each. */
export interface ReviewVerdict {
  approved: boolean;
  /** Reviews asking for changes, with their comments (`file:line: text`). */
  changesRequested: { reviewer: string; body: string; comments: string[] }[];
}

/** What to open a pull request with (or update the open one of its head branch to). */
export interface PullRequestRequest {
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  labels: readonly string[];
  reviewers: readonly string[];
}

/** A check that failed, with what the forge says of why. */
export interface FailedCheck {
  name: string;
  /** The check's title and summary, as its CI wrote them. */
  summary?: string;
  /** Its annotations: file, line and message. */
  annotations: string[];
  detailsUrl?: string;
  /** The end of the failing job's log, where the forge gives it. */
  logTail?: string;
}

/** What the checks of a commit say, all of them or the required ones. */
export type ChecksVerdict =
  | { state: 'pending'; waitingFor: string[] }
  | { state: 'success'; passed: string[] }
  | { state: 'failure'; failed: FailedCheck[] };

/** How merging a pull request through the forge went. */
export type PullRequestMerge = 'merged' | 'base_moved';

/** How bringing a pull request's branch up to its base went. */
export type UpdateResult = 'updated' | 'conflict';

/** An issue, as work to import. */
export interface Issue {
  number: number;
  title: string;
  body: string;
  url: string;
  state: 'open' | 'closed';
  /** Why a closed one was closed: done, or dropped (not planned, a duplicate). */
  closedAs?: 'completed' | 'not_planned';
  /** Who opened it. */
  author?: string;
  /**
   * The author's standing in the repository: GitHub's association (OWNER, MEMBER, NONE…), or
   * GitLab's access level by name (DEVELOPER, MAINTAINER…; NONE for no member).
   */
  authorAssociation?: string;
  /** GitLab's access level of the author in the project (30: developer); 0 for no member. */
  authorAccessLevel?: number;
}

/** GitLab's access levels by name, lowest first (an issue's author's standing is one). */
export const GITLAB_ACCESS_LEVELS = {
  NONE: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  PLANNER: 15,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

/** Which open issues to import: each given filter must hold. */
export interface IssueQuery {
  label?: string;
  /** A milestone's number or title. */
  milestone?: string;
  assignee?: string;
}

/** A forge's pull requests, as the runner uses them. */
export interface Forge {
  /**
   * Reads the repository: it is there and the token may push to it (`ralph doctor`), spending
   * nothing; `lacks`: a scope the token needs and lacks, where the forge tells its scopes.
   */
  repository(): Promise<{ name: string; defaultBranch: string; canPush: boolean; lacks?: string }>;
  /**
   * Pushes a branch of the local repository to the forge's remote, with the person's git
   * credentials (the API token never reaches git). `lease`: the commit the remote branch is
   * known to be at, which the push may replace even when it is not an ancestor.
   */
  push(repo: string, branch: string, lease?: string): Promise<void>;
  /** Opens the head branch's pull request into the base, or updates the open one. */
  openPullRequest(request: PullRequestRequest): Promise<PullRequest>;
  /** A pull request as it is now. */
  pullRequest(number: number): Promise<PullRequest>;
  reviews(pullRequest: number): Promise<ReviewVerdict>;
  /** Brings the pull request's branch up to its base (its base moved since the checks ran). */
  updateBranch(pullRequest: number, headSha: string): Promise<UpdateResult>;
  /** The checks of a commit (`required`: only those names count; none named: every one). */
  checks(sha: string, required?: readonly string[]): Promise<ChecksVerdict>;
  /** Comments on a pull request. */
  comment(pullRequest: number, body: string): Promise<void>;
  /**
   * Comments on an issue once: the comment carries `mark`, and is not made again when a comment
   * with it is there already (a runner killed after making it, before recording it).
   */
  commentOnIssue(issue: number, body: string, mark: string): Promise<void>;
  /** The open issues the query matches, every page of them, pull requests left out. */
  issues(query: IssueQuery): Promise<Issue[]>;
  /** One issue as it is now. */
  issue(number: number): Promise<Issue>;
  /** Closes a pull request unmerged (a person rejected its work). */
  closePullRequest(pullRequest: number): Promise<void>;
  merge(
    pullRequest: number,
    method: 'merge' | 'squash' | 'rebase',
    sha: string,
  ): Promise<PullRequestMerge>;
}

/** The mark a comment of ralph's carries, unseen in the rendered text. */
export const commentMark = (mark: string): string =>
  `<!-- ralph:${mark.replace(/[^\w.:-]/g, '-')} -->`;

/** Why a forge refused or could not answer: what people must fix is in the message. */
export class ForgeError extends Error {
  constructor(
    /**
     * `auth`: the token is missing, wrong or lacks a permission (the night pauses);
     * `not_found`: the repository, branch or pull request is not there;
     * `rate_limited` and `unavailable`: wait and ask again; `refused`: the request was wrong.
     */
    readonly kind: 'auth' | 'not_found' | 'rate_limited' | 'unavailable' | 'refused',
    message: string,
  ) {
    super(message);
    this.name = 'ForgeError';
  }
}
