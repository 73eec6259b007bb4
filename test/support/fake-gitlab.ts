// A fake of the GitLab REST API (v4) endpoints ralph uses, on 127.0.0.1, under a path when asked
// (a self-hosted instance at `/gitlab`): the project, the token's own scopes, merge requests
// (opened, edited, closed, merged as the project's merge method says, rebased), their approvals,
// reviewers and threads, notes, a commit's pipeline jobs (as commit statuses) and a job's log,
// issues with their notes (paged by `Link` headers, as GitLab pages), members and users. With a
// bare repository as its remote, a merge request's head is its branch's commit there and a merge
// moves the target. The suite drives it with `@gitbeaker/rest` itself, so what it answers is
// what the real client asks.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bareRemote } from './bare-remote.js';

export interface FakeJob {
  id: number;
  name: string;
  status: string;
  allow_failure?: boolean;
  /** Its log (with GitLab's colours and section markers, as runners write it). */
  log?: string;
}

export interface FakeMergeRequest {
  iid: number;
  source: string;
  target: string;
  title: string;
  description: string;
  state: 'opened' | 'closed' | 'merged';
  sha: string;
  labels: string[];
  reviewerIds: number[];
  notes: string[];
  squashed?: boolean;
}

export interface FakeGitLabIssue {
  iid: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  labels: string[];
  milestone?: string;
  assignee?: string;
  /** Its author's user id (see `users`). */
  authorId: number;
  notes: string[];
}

export interface FakeGitLabCall {
  method: string;
  path: string;
  status: number;
  token?: string;
}

export interface FakeGitLab {
  /** The instance's URL, its path prefix included: what `forge.apiUrl` is set to. */
  url: string;
  project: string;
  token: string;
  /** The token's scopes (`api` lets it write). */
  scopes: string[];
  /** The project's merge method: `merge`, `rebase_merge`, or `ff` (fast-forward only). */
  mergeMethod: 'merge' | 'rebase_merge' | 'ff';
  mergeRequests: FakeMergeRequest[];
  issues: FakeGitLabIssue[];
  /** Users by id: their username and access level in the project (0: no member). */
  users: Map<number, { username: string; level: number }>;
  /** Approvals and reviewers' states by merge request. */
  approvedBy: Map<number, string[]>;
  reviewerStates: Map<number, { username: string; state: string }[]>;
  discussions: Map<number, unknown[]>;
  /** The jobs of a commit's pipeline the test did not script (undefined: none yet). */
  jobsFor?: (sha: string) => FakeJob[] | undefined;
  calls: FakeGitLabCall[];
  /** Answers to give instead, in order, to requests whose `method path` matches. */
  script: { match: RegExp; status: number; headers?: Record<string, string>; body?: unknown }[];
  /** Requests whose `method path` matches are carried out, and their answer never sent. */
  swallow?: RegExp;
  close(): Promise<void>;
}

export interface FakeGitLabOptions {
  project?: string;
  bare?: string;
  /** The path the instance is served under (`/gitlab`); none by default. */
  prefix?: string;
  token?: string;
}

export const GITLAB_TOKEN = 'glpat-test-0123456789abcdef';

const GITLAB_COMMITTER = { name: 'GitLab', email: 'noreply@gitlab.example' };

/** A pipeline that fails the `test` job of a commit holding a `broken-*` file, with its log. */
export function brokenFilePipeline(bare: string): (sha: string) => FakeJob[] {
  let ids = 500;
  const jobs = new Map<string, FakeJob[]>();
  const remote = bareRemote(bare, GITLAB_COMMITTER);
  return (sha) => {
    const known = jobs.get(sha);
    if (known !== undefined) return known;
    const files = remote.git('ls-tree', '--name-only', sha).split('\n');
    const broken = files.find((f) => f.startsWith('broken-'));
    const made: FakeJob[] = [
      { id: ids++, name: 'lint', status: 'success' },
      broken === undefined
        ? { id: ids++, name: 'test', status: 'success' }
        : {
            id: ids++,
            name: 'test',
            status: 'failed',
            log: `section_start:1700000000:step_script\r\x1b[0K\x1b[32;1m$ npm test\x1b[0;m\nstep 1\nstep 2\n\x1b[31merror: ${broken} breaks the build\x1b[0m\nsection_end:1700000001:step_script\r\x1b[0K\n`,
          },
      { id: ids++, name: 'flaky', status: 'failed', allow_failure: true },
    ];
    jobs.set(sha, made);
    return made;
  };
}

export async function startFakeGitLab(options: FakeGitLabOptions = {}): Promise<FakeGitLab> {
  const { project = 'acme/platform/app', bare, prefix = '', token = GITLAB_TOKEN } = options;
  const fake: Omit<FakeGitLab, 'url' | 'close'> = {
    project,
    token,
    scopes: ['api', 'read_repository', 'write_repository'],
    mergeMethod: 'merge',
    mergeRequests: [],
    issues: [],
    users: new Map([
      [1, { username: 'maintainer', level: 40 }],
      [2, { username: 'outsider', level: 0 }],
      [3, { username: 'reviewer', level: 30 }],
    ]),
    approvedBy: new Map(),
    reviewerStates: new Map(),
    discussions: new Map(),
    calls: [],
    script: [],
  };
  const remote = bareRemote(bare, GITLAB_COMMITTER);
  const { branchSha, isAncestor, mergedTree } = remote;
  const webBase = `https://gitlab.example${prefix}/${project}`;
  const mrJson = (mr: FakeMergeRequest) => {
    if (mr.state === 'opened') mr.sha = branchSha(mr.source) ?? mr.sha;
    const target = branchSha(mr.target);
    return {
      iid: mr.iid,
      web_url: `${webBase}/-/merge_requests/${mr.iid}`,
      sha: mr.sha,
      state: mr.state,
      draft: mr.title.startsWith('Draft: '),
      title: mr.title,
      description: mr.description,
      source_branch: mr.source,
      target_branch: mr.target,
      labels: mr.labels,
      has_conflicts:
        mr.state === 'opened' && target !== undefined && mergedTree(target, mr.sha) === undefined,
    };
  };
  const userJson = (id: number) => ({ id, username: fake.users.get(id)?.username ?? `user${id}` });
  const issueJson = (issue: FakeGitLabIssue) => ({
    iid: issue.iid,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    web_url: `${webBase}/-/issues/${issue.iid}`,
    labels: issue.labels,
    author: userJson(issue.authorId),
  });
  /** A merge as the project's method makes it; false when the method refuses it as it is. */
  const merge = (mr: FakeMergeRequest, squash: boolean): boolean => {
    if (bare === undefined) return true;
    const target = branchSha(mr.target) ?? '';
    const source = branchSha(mr.source) ?? mr.sha;
    const behind = !isAncestor(target, source);
    if (behind && fake.mergeMethod !== 'merge') return false;
    let commit: string;
    if (!behind && fake.mergeMethod === 'ff' && !squash) commit = source;
    else {
      const tree = mergedTree(target, source);
      if (tree === undefined) return false;
      commit = squash
        ? remote.git('commit-tree', tree, '-p', target, '-m', mr.title)
        : remote.git('commit-tree', tree, '-p', target, '-p', source, '-m', `Merge ${mr.source}`);
    }
    remote.git('update-ref', `refs/heads/${mr.target}`, commit);
    // GitLab's closing pattern: the issues the description fixes close with the merge.
    for (const found of mr.description.matchAll(/\b(?:Fixes|Closes)\s+(?:[\w./-]+)?#(\d+)/g)) {
      const issue = fake.issues.find((i) => i.iid === Number(found[1]));
      if (issue !== undefined) issue.state = 'closed';
    }
    mr.squashed = squash;
    return true;
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => answer());
    const answer = () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = req.method ?? 'GET';
      const given = req.headers['private-token'];
      const swallowed = fake.swallow?.test(`${method} ${url.pathname}`) === true;
      const send = (
        status: number,
        body?: unknown,
        headers: Record<string, string> = {},
        type = 'application/json',
      ) => {
        fake.calls.push({
          method,
          path: decodeURIComponent(url.pathname),
          status,
          ...(typeof given === 'string' ? { token: given } : {}),
        });
        if (swallowed) return;
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
      };
      const scripted = fake.script.findIndex((s) => s.match.test(`${method} ${url.pathname}`));
      if (scripted !== -1) {
        const [said] = fake.script.splice(scripted, 1);
        if (said !== undefined)
          return send(said.status, said.body ?? { message: 'scripted' }, said.headers);
      }
      if (given !== token) return send(401, { message: '401 Unauthorized' });
      const root = `${prefix}/api/v4`;
      if (!url.pathname.startsWith(`${root}/`)) return send(404, { message: '404 Not Found' });
      const rest = url.pathname.slice(root.length);
      const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      if (method !== 'GET' && !fake.scopes.includes('api'))
        return send(403, {
          error: 'insufficient_scope',
          error_description:
            'The request requires higher privileges than provided by the access token.',
        });
      if (rest === '/personal_access_tokens/self' && method === 'GET')
        return send(200, { id: 9, name: 'ralph', scopes: fake.scopes, active: true });
      if ((rest === '/users' || rest.startsWith('/users?')) && method === 'GET') {
        const username = url.searchParams.get('username');
        return send(
          200,
          [...fake.users.keys()]
            .filter((id) => fake.users.get(id)?.username === username)
            .map(userJson),
        );
      }
      const projectRoot = `/projects/${encodeURIComponent(project)}`;
      const encoded = url.pathname.slice(root.length);
      if (!encoded.startsWith(projectRoot)) return send(404, { message: '404 Project Not Found' });
      const tail = encoded.slice(projectRoot.length);
      let m: RegExpExecArray | null;
      if (tail === '' && method === 'GET')
        return send(200, {
          id: 42,
          path_with_namespace: project,
          default_branch: 'main',
          merge_method: fake.mergeMethod,
          permissions: { project_access: { access_level: 40 }, group_access: null },
        });
      if (tail === '/merge_requests' && method === 'GET') {
        const source = url.searchParams.get('source_branch');
        const state = url.searchParams.get('state');
        return send(
          200,
          fake.mergeRequests
            .filter((mr) => mr.source === source && (state === null || mr.state === state))
            .map(mrJson),
        );
      }
      if (tail === '/merge_requests' && method === 'POST') {
        const mr: FakeMergeRequest = {
          iid: fake.mergeRequests.length + 1,
          source: String(body.source_branch),
          target: String(body.target_branch),
          title: String(body.title),
          description: typeof body.description === 'string' ? body.description : '',
          state: 'opened',
          sha: branchSha(String(body.source_branch)) ?? '0'.repeat(40),
          labels: typeof body.labels === 'string' ? body.labels.split(',') : [],
          reviewerIds: Array.isArray(body.reviewer_ids) ? body.reviewer_ids.map(Number) : [],
          notes: [],
        };
        fake.mergeRequests.push(mr);
        return send(201, mrJson(mr));
      }
      const mrOf = (iid: string | undefined) =>
        fake.mergeRequests.find((mr) => mr.iid === Number(iid));
      if ((m = /^\/merge_requests\/(\d+)$/.exec(tail))) {
        const mr = mrOf(m[1]);
        if (mr === undefined) return send(404, { message: '404 Not found' });
        if (method === 'GET') return send(200, mrJson(mr));
        if (method === 'PUT') {
          if (typeof body.title === 'string') mr.title = body.title;
          if (typeof body.description === 'string') mr.description = body.description;
          if (typeof body.target_branch === 'string') mr.target = body.target_branch;
          if (typeof body.add_labels === 'string')
            mr.labels = [...new Set([...mr.labels, ...body.add_labels.split(',')])];
          if (body.state_event === 'close' && mr.state === 'opened') mr.state = 'closed';
          return send(200, mrJson(mr));
        }
      }
      if ((m = /^\/merge_requests\/(\d+)\/merge$/.exec(tail)) && method === 'PUT') {
        const mr = mrOf(m[1]);
        if (mr === undefined) return send(404, { message: '404 Not found' });
        if (mr.state !== 'opened') return send(405, { message: '405 Method Not Allowed' });
        const head = branchSha(mr.source) ?? mr.sha;
        if (typeof body.sha === 'string' && body.sha !== head)
          return send(409, { message: 'SHA does not match HEAD of source branch' });
        if (!merge(mr, body.squash === true))
          return send(406, { message: 'Branch cannot be merged' });
        mr.state = 'merged';
        return send(200, mrJson(mr));
      }
      if ((m = /^\/merge_requests\/(\d+)\/rebase$/.exec(tail)) && method === 'PUT') {
        const mr = mrOf(m[1]);
        if (mr === undefined || bare === undefined) return send(404, { message: '404 Not found' });
        const target = branchSha(mr.target) ?? '';
        const source = branchSha(mr.source) ?? '';
        const tree = mergedTree(target, source);
        if (tree === undefined) return send(403, { message: 'Rebase failed: conflicts' });
        // The fake's rebase: the target merged into the source branch.
        const commit = remote.git('commit-tree', tree, '-p', source, '-p', target, '-m', 'rebase');
        remote.git('update-ref', `refs/heads/${mr.source}`, commit);
        return send(202, { rebase_in_progress: true });
      }
      if ((m = /^\/merge_requests\/(\d+)\/approvals$/.exec(tail)) && method === 'GET') {
        const by = fake.approvedBy.get(Number(m[1])) ?? [];
        return send(200, {
          approved: by.length > 0,
          approved_by: by.map((username) => ({ user: { username } })),
        });
      }
      if ((m = /^\/merge_requests\/(\d+)\/reviewers$/.exec(tail)) && method === 'GET')
        return send(
          200,
          (fake.reviewerStates.get(Number(m[1])) ?? []).map((r) => ({
            user: { username: r.username },
            state: r.state,
          })),
        );
      if ((m = /^\/merge_requests\/(\d+)\/discussions$/.exec(tail)) && method === 'GET')
        return send(200, fake.discussions.get(Number(m[1])) ?? []);
      if ((m = /^\/merge_requests\/(\d+)\/notes$/.exec(tail)) && method === 'POST') {
        const mr = mrOf(m[1]);
        if (mr === undefined) return send(404, { message: '404 Not found' });
        mr.notes.push(String(body.body));
        return send(201, { id: mr.notes.length, body: body.body });
      }
      if ((m = /^\/repository\/commits\/([0-9a-f]{40})\/statuses$/.exec(tail)) && method === 'GET')
        return send(
          200,
          (fake.jobsFor?.(m[1] ?? '') ?? []).map((job) => ({
            id: job.id,
            sha: m?.[1],
            name: job.name,
            status: job.status,
            allow_failure: job.allow_failure === true,
            description: null,
            target_url: `${webBase}/-/jobs/${job.id}`,
          })),
        );
      if ((m = /^\/jobs\/(\d+)\/trace$/.exec(tail)) && method === 'GET') {
        const id = Number(m[1]);
        for (const mr of fake.mergeRequests) {
          const job = (fake.jobsFor?.(mr.sha) ?? []).find((j) => j.id === id);
          if (job !== undefined) return send(200, job.log ?? '', {}, 'text/plain');
        }
        return send(404, { message: '404 Not found' });
      }
      if (tail === '/issues' && method === 'GET') {
        const label = url.searchParams.get('labels');
        const milestone = url.searchParams.get('milestone');
        const assignee = url.searchParams.get('assignee_username[]');
        const matching = fake.issues.filter(
          (i) =>
            i.state === 'opened' &&
            (label === null || i.labels.includes(label)) &&
            (milestone === null || i.milestone === milestone) &&
            (assignee === null || i.assignee === assignee),
        );
        const perPage = Number(url.searchParams.get('per_page') ?? 20);
        const page = Number(url.searchParams.get('page') ?? 1);
        const slice = matching.slice((page - 1) * perPage, page * perPage);
        const more = page * perPage < matching.length;
        const next = new URL(url.toString());
        next.searchParams.set('page', String(page + 1));
        return send(
          200,
          slice.map(issueJson),
          more ? { link: `<http://127.0.0.1${next.pathname}${next.search}>; rel="next"` } : {},
        );
      }
      const issueOf = (iid: string | undefined) => fake.issues.find((i) => i.iid === Number(iid));
      if ((m = /^\/issues\/(\d+)$/.exec(tail)) && method === 'GET') {
        const issue = issueOf(m[1]);
        return issue === undefined
          ? send(404, { message: '404 Not found' })
          : send(200, issueJson(issue));
      }
      if ((m = /^\/issues\/(\d+)\/notes$/.exec(tail))) {
        const issue = issueOf(m[1]);
        if (issue === undefined) return send(404, { message: '404 Not found' });
        if (method === 'GET')
          return send(
            200,
            issue.notes.map((text, i) => ({ id: i + 1, body: text, system: false })),
          );
        if (method === 'POST') {
          issue.notes.push(String(body.body));
          return send(201, { id: issue.notes.length, body: body.body });
        }
      }
      if ((m = /^\/members\/all\/(\d+)$/.exec(tail)) && method === 'GET') {
        const user = fake.users.get(Number(m[1]));
        if (user === undefined || user.level === 0) return send(404, { message: '404 Not found' });
        return send(200, { id: Number(m[1]), username: user.username, access_level: user.level });
      }
      return send(404, { message: `404 ${method} ${tail} is not faked` });
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
