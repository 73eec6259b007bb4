// A fake of the GitHub REST endpoints ralph's forge uses, on 127.0.0.1: pull requests, labels,
// reviewers, reviews, comments, merges, branch updates, and check runs and statuses the test
// scripts per commit. With a bare repository as its remote, a pull request's head is the
// branch's commit there, a merge moves the base and an update merges the base into the head.
// It answers a conditional GET with a 304 when nothing changed, counts every request, and can
// be told to refuse the token or to be rate-limited.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bareRemote } from './bare-remote.js';

const GITHUB_COMMITTER = { name: 'GitHub', email: 'noreply@github.example' };

export interface FakeCheckRun {
  id: number;
  /** The end of its job's log (an Actions job). */
  log?: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  output?: { title?: string; summary?: string };
  annotations?: { path: string; start_line: number; annotation_level: string; message: string }[];
}

export interface FakePull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  labels: string[];
  reviewers: string[];
  comments: string[];
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  milestone?: { number: number; title: string };
  assignee?: string;
  user: string;
  /** GitHub's author association (default MEMBER: the team's own issue). */
  association?: string;
  /** Why it was closed (default `completed`). */
  stateReason?: 'completed' | 'not_planned' | 'duplicate';
  /** Comments made on it (ralph's write-backs). */
  comments: string[];
}

export interface FakeReview {
  id: number;
  user: { login: string };
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  body: string;
  comments: { path: string; line: number; body: string }[];
}

export interface RecordedCall {
  method: string;
  path: string;
  status: number;
  authorization?: string;
}

export interface FakeGitHub {
  url: string;
  owner: string;
  repo: string;
  pulls: FakePull[];
  /** Check runs and statuses by commit. */
  checkRuns: Map<string, FakeCheckRun[]>;
  statuses: Map<string, { context: string; state: string; description?: string }[]>;
  calls: RecordedCall[];
  /** The head commit a new pull request of a branch reports. */
  headShas: Map<string, string>;
  /** Answers to give instead, in order, to requests whose `method path` matches. */
  script: { match: RegExp; status: number; headers?: Record<string, string>; body?: unknown }[];
  /** Merges answer this status (200: merged). */
  mergeStatus: number;
  /** Reviews by pull request number. */
  reviews: Map<number, FakeReview[]>;
  /** The repository's issues (GitHub numbers them with its pull requests; here from 1000). */
  issues: FakeIssue[];
  /** The checks of a commit the test did not script in `checkRuns` (undefined: none yet). */
  checksFor?: (sha: string) => FakeCheckRun[] | undefined;
  /** Branch protection's "up to date": a merge of a head its base is not in is refused (405). */
  requireUpToDate: boolean;
  /** Every request is answered only after this many milliseconds (a GitHub that stalls). */
  stallMs: number;
  close(): Promise<void>;
}

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  /** The bare repository that is the remote ralph pushes to. */
  bare?: string;
}

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const { owner = 'acme', repo = 'app', bare } = options;
  const pulls: FakePull[] = [];
  const checkRuns = new Map<string, FakeCheckRun[]>();
  const statuses = new Map<string, { context: string; state: string; description?: string }[]>();
  const calls: RecordedCall[] = [];
  const headShas = new Map<string, string>();
  const script: FakeGitHub['script'] = [];
  const reviews = new Map<number, FakeReview[]>();
  const issues: FakeIssue[] = [];
  const state = {
    mergeStatus: 200,
    requireUpToDate: false,
    stallMs: 0,
    checksFor: undefined as FakeGitHub['checksFor'],
  };
  const remote = bareRemote(bare, GITHUB_COMMITTER);
  const { branchSha, isAncestor, mergedTree } = remote;
  const runsOf = (sha: string) => checkRuns.get(sha) ?? state.checksFor?.(sha) ?? [];
  const base = `/repos/${owner}/${repo}`;

  const pullJson = (p: FakePull) => {
    if (p.state === 'open') p.headSha = branchSha(p.head) ?? p.headSha;
    return pullFields(p);
  };
  const pullFields = (p: FakePull) => ({
    number: p.number,
    html_url: `https://github.example/${owner}/${repo}/pull/${p.number}`,
    state: p.state,
    draft: p.draft,
    merged_at: p.merged ? '2026-11-24T00:00:00Z' : null,
    head: { ref: p.head, sha: p.headSha },
    base: { ref: p.base },
    title: p.title,
    body: p.body,
  });

  const issueJson = (i: FakeIssue) => ({
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    html_url: `https://github.example/${owner}/${repo}/issues/${i.number}`,
    user: { login: i.user },
    author_association: i.association ?? 'MEMBER',
    state_reason: i.state === 'closed' ? (i.stateReason ?? 'completed') : null,
    labels: i.labels.map((name) => ({ name })),
  });

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      if (state.stallMs > 0) setTimeout(answer, state.stallMs).unref();
      else answer();
    });
    const answer = () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = req.method ?? 'GET';
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        calls.push({
          method,
          path: url.pathname,
          status,
          authorization: req.headers.authorization,
        });
        const text = body === undefined ? '' : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(status === 304 ? undefined : text);
      };
      const scripted = script.findIndex((s) => s.match.test(`${method} ${url.pathname}`));
      if (scripted !== -1) {
        const [answer] = script.splice(scripted, 1);
        if (answer !== undefined)
          return send(answer.status, answer.body ?? { message: 'scripted' }, answer.headers);
      }
      if (req.headers.authorization !== 'token test-token-0123456789')
        return send(401, { message: 'Bad credentials' });
      const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      /** A GET whose answer carries an ETag: a 304 when the client has it already. */
      const conditional = (data: unknown) => {
        const etag = `"${createHash('sha1').update(JSON.stringify(data)).digest('hex')}"`;
        if (req.headers['if-none-match'] === etag) return send(304, undefined, { etag });
        return send(200, data, { etag });
      };
      const path = url.pathname;
      if (!path.startsWith(base)) return send(404, { message: 'Not Found' });
      const rest = path.slice(base.length);
      if (rest === '' && method === 'GET')
        return send(200, {
          full_name: `${owner}/${repo}`,
          default_branch: 'main',
          permissions: { push: true },
        });
      let m: RegExpExecArray | null;
      if (rest === '/pulls' && method === 'GET') {
        const head = url.searchParams.get('head')?.split(':')[1];
        return send(200, pulls.filter((p) => p.state === 'open' && p.head === head).map(pullJson));
      }
      if (rest === '/pulls' && method === 'POST') {
        const pull: FakePull = {
          number: pulls.length + 1,
          head: String(body.head),
          base: String(body.base),
          title: String(body.title),
          body: String(body.body),
          draft: body.draft === true,
          state: 'open',
          merged: false,
          headSha:
            branchSha(String(body.head)) ?? headShas.get(String(body.head)) ?? '0'.repeat(40),
          labels: [],
          reviewers: [],
          comments: [],
        };
        pulls.push(pull);
        return send(201, pullJson(pull));
      }
      if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'GET') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        if (pull === undefined) return send(404, { message: 'Not Found' });
        return conditional(pullJson(pull));
      }
      if ((m = /^\/pulls\/(\d+)\/reviews$/.exec(rest)) && method === 'GET')
        return conditional(
          (reviews.get(Number(m[1])) ?? []).map(({ comments: _c, ...review }) => review),
        );
      if ((m = /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/.exec(rest)) && method === 'GET') {
        const review = reviews.get(Number(m[1]))?.find((r) => r.id === Number(m?.[2]));
        return send(200, review?.comments ?? []);
      }
      if ((m = /^\/pulls\/(\d+)\/update-branch$/.exec(rest)) && method === 'PUT') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        const head = pull === undefined ? undefined : branchSha(pull.head);
        const baseSha = pull === undefined ? undefined : branchSha(pull.base);
        if (pull === undefined || head === undefined || baseSha === undefined || bare === undefined)
          return send(422, { message: 'merge conflict between base and head' });
        const tree = mergedTree(baseSha, head);
        if (tree === undefined)
          return send(422, { message: 'merge conflict between base and head' });
        const merged = remote.git(
          'commit-tree',
          tree,
          '-p',
          head,
          '-p',
          baseSha,
          '-m',
          `Merge branch '${pull.base}' into ${pull.head}`,
        );
        remote.git('update-ref', `refs/heads/${pull.head}`, merged, head);
        return send(202, { message: 'Updating pull request branch.' });
      }
      if ((m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest)) && method === 'GET') {
        const run = [...checkRuns.values(), ...pulls.map((p) => runsOf(p.headSha))]
          .flat()
          .find((r) => r.id === Number(m?.[1]));
        if (run?.log === undefined) return send(404, { message: 'Not Found' });
        calls.push({
          method,
          path: url.pathname,
          status: 200,
          authorization: req.headers.authorization,
        });
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(run.log);
      }
      if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'PATCH') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        if (pull === undefined) return send(404, { message: 'Not Found' });
        if (body.state === 'closed') Object.assign(pull, { state: 'closed' });
        else Object.assign(pull, { title: body.title, body: body.body, base: body.base });
        return send(200, pullJson(pull));
      }
      if ((m = /^\/issues\/(\d+)\/labels$/.exec(rest)) && method === 'POST') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        pull?.labels.push(...(body.labels as string[]));
        return send(200, []);
      }
      if ((m = /^\/pulls\/(\d+)\/requested_reviewers$/.exec(rest)) && method === 'POST') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        pull?.reviewers.push(...(body.reviewers as string[]));
        return send(201, {});
      }
      if (rest === '/issues' && method === 'GET') {
        const q = url.searchParams;
        const wanted = q.get('state') ?? 'open';
        const matching = issues.filter(
          (i) =>
            (wanted === 'all' || i.state === wanted) &&
            (q.get('labels') === null || i.labels.includes(q.get('labels') ?? '')) &&
            (q.get('milestone') === null || String(i.milestone?.number) === q.get('milestone')) &&
            (q.get('assignee') === null || i.assignee === q.get('assignee')),
        );
        const perPage = Math.min(Number(q.get('per_page') ?? 30), 100);
        const page = Number(q.get('page') ?? 1);
        // A pull request is an issue too, as GitHub lists them: ralph must leave it out.
        const listed = [
          ...matching.map(issueJson),
          ...(q.get('labels') === null
            ? pulls.map((p) => ({ ...pullFields(p), pull_request: {} }))
            : []),
        ];
        return send(200, listed.slice((page - 1) * perPage, page * perPage));
      }
      if (rest === '/milestones' && method === 'GET') {
        const milestones = new Map(
          issues.flatMap((i) =>
            i.milestone === undefined ? [] : [[i.milestone.number, i.milestone]],
          ),
        );
        return send(200, [...milestones.values()]);
      }
      if ((m = /^\/issues\/(\d+)$/.exec(rest)) && method === 'GET') {
        const issue = issues.find((i) => i.number === Number(m?.[1]));
        if (issue === undefined) return send(404, { message: 'Not Found' });
        return send(200, issueJson(issue));
      }
      if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest)) && method === 'GET') {
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        const said =
          issues.find((i) => i.number === Number(m?.[1]))?.comments ??
          pulls.find((p) => p.number === Number(m?.[1]))?.comments ??
          [];
        return send(
          200,
          said
            .slice((page - 1) * perPage, page * perPage)
            .map((text, i) => ({ id: i + 1, body: text })),
        );
      }
      if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest)) && method === 'POST') {
        const issue = issues.find((i) => i.number === Number(m?.[1]));
        if (issue !== undefined) {
          issue.comments.push(String(body.body));
          return send(201, { id: 1 });
        }
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        pull?.comments.push(String(body.body));
        return send(201, { id: 1 });
      }
      if ((m = /^\/pulls\/(\d+)\/merge$/.exec(rest)) && method === 'PUT') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        if (state.mergeStatus !== 200)
          return send(state.mergeStatus, {
            message: 'Base branch was modified. Review and try the merge again.',
          });
        if (pull === undefined) return send(404, { message: 'Not Found' });
        const head = branchSha(pull.head);
        const baseSha = branchSha(pull.base);
        if (body.sha !== undefined && head !== undefined && body.sha !== head)
          return send(409, {
            message: 'Head branch was modified. Review and try the merge again.',
          });
        if (
          state.requireUpToDate &&
          head !== undefined &&
          baseSha !== undefined &&
          !isAncestor(baseSha, head)
        )
          return send(405, { message: 'Head branch is out of date. Update it and try again.' });
        if (bare !== undefined && head !== undefined && baseSha !== undefined) {
          const merged = isAncestor(baseSha, head)
            ? head
            : remote.git('commit-tree', `${head}^{tree}`, '-p', baseSha, '-p', head, '-m', 'Merge');
          remote.git('update-ref', `refs/heads/${pull.base}`, merged, baseSha);
        }
        Object.assign(pull, { merged: true, state: 'closed', headSha: head ?? pull.headSha });
        return send(200, { merged: true, sha: 'f'.repeat(40) });
      }
      if ((m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest)) && method === 'GET') {
        const runs = runsOf(m[1] ?? '');
        return conditional({
          total_count: runs.length,
          check_runs: runs.map(({ annotations: _a, log: _l, ...run }) => ({
            ...run,
            details_url: `https://ci.example/${run.id}`,
          })),
        });
      }
      if ((m = /^\/commits\/([^/]+)\/status$/.exec(rest)) && method === 'GET')
        return conditional({ statuses: statuses.get(m[1] ?? '') ?? [] });
      if ((m = /^\/check-runs\/(\d+)\/annotations$/.exec(rest)) && method === 'GET') {
        const run = [...checkRuns.values(), ...pulls.map((p) => runsOf(p.headSha))]
          .flat()
          .find((r) => r.id === Number(m?.[1]));
        return send(200, run?.annotations ?? []);
      }
      return send(404, { message: 'Not Found' });
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeGitHub = {
    url: `http://127.0.0.1:${port}`,
    owner,
    repo,
    pulls,
    checkRuns,
    statuses,
    calls,
    headShas,
    script,
    reviews,
    issues,
    get mergeStatus() {
      return state.mergeStatus;
    },
    set mergeStatus(status: number) {
      state.mergeStatus = status;
    },
    get stallMs() {
      return state.stallMs;
    },
    set stallMs(ms: number) {
      state.stallMs = ms;
    },
    get requireUpToDate() {
      return state.requireUpToDate;
    },
    set requireUpToDate(on: boolean) {
      state.requireUpToDate = on;
    },
    get checksFor() {
      return state.checksFor;
    },
    set checksFor(f: FakeGitHub['checksFor']) {
      state.checksFor = f;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** The fake CI: `build` fails a commit holding a `broken-*` file, with an annotation and a log. */
export function brokenFileCi(bare: string): (sha: string) => FakeCheckRun[] {
  let ids = 100;
  const runs = new Map<string, FakeCheckRun[]>();
  const remote = bareRemote(bare, GITHUB_COMMITTER);
  return (sha) => {
    const known = runs.get(sha);
    if (known !== undefined) return known;
    const files = remote.git('ls-tree', '--name-only', sha).split('\n');
    const broken = files.find((f) => f.startsWith('broken-'));
    const made: FakeCheckRun[] = [
      broken === undefined
        ? { id: ids++, name: 'build', status: 'completed', conclusion: 'success' }
        : {
            id: ids++,
            name: 'build',
            status: 'completed',
            conclusion: 'failure',
            output: { title: 'Build failed', summary: `${broken} must not exist` },
            annotations: [
              {
                path: broken,
                start_line: 1,
                annotation_level: 'failure',
                message: 'breaks the build',
              },
            ],
            log: `step 1\nstep 2\nerror: ${broken} breaks the build\n`,
          },
    ];
    runs.set(sha, made);
    return made;
  };
}
