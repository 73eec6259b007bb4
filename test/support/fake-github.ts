// A fake of the GitHub REST endpoints ralph's forge uses, on 127.0.0.1: pull requests, labels,
// reviewers, comments, merges, and check runs and statuses the test scripts per commit. It
// answers a conditional GET with a 304 when nothing changed, counts every request, and can be
// told to refuse the token or to be rate-limited.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCheckRun {
  id: number;
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
  close(): Promise<void>;
}

export async function startFakeGitHub(owner = 'acme', repo = 'app'): Promise<FakeGitHub> {
  const pulls: FakePull[] = [];
  const checkRuns = new Map<string, FakeCheckRun[]>();
  const statuses = new Map<string, { context: string; state: string; description?: string }[]>();
  const calls: RecordedCall[] = [];
  const headShas = new Map<string, string>();
  const script: FakeGitHub['script'] = [];
  const state = { mergeStatus: 200 };
  const base = `/repos/${owner}/${repo}`;

  const pullJson = (p: FakePull) => ({
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

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
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
          headSha: headShas.get(String(body.head)) ?? '0'.repeat(40),
          labels: [],
          reviewers: [],
          comments: [],
        };
        pulls.push(pull);
        return send(201, pullJson(pull));
      }
      if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'PATCH') {
        const pull = pulls.find((p) => p.number === Number(m?.[1]));
        if (pull === undefined) return send(404, { message: 'Not Found' });
        Object.assign(pull, { title: body.title, body: body.body, base: body.base });
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
      if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest)) && method === 'POST') {
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
        if (pull !== undefined) Object.assign(pull, { merged: true, state: 'closed' });
        return send(200, { merged: true, sha: 'f'.repeat(40) });
      }
      if ((m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest)) && method === 'GET') {
        const runs = checkRuns.get(m[1] ?? '') ?? [];
        return conditional({
          total_count: runs.length,
          check_runs: runs.map(({ annotations: _a, ...run }) => ({
            ...run,
            details_url: `https://ci.example/${run.id}`,
          })),
        });
      }
      if ((m = /^\/commits\/([^/]+)\/status$/.exec(rest)) && method === 'GET')
        return conditional({ statuses: statuses.get(m[1] ?? '') ?? [] });
      if ((m = /^\/check-runs\/(\d+)\/annotations$/.exec(rest)) && method === 'GET') {
        const run = [...checkRuns.values()].flat().find((r) => r.id === Number(m?.[1]));
        return send(200, run?.annotations ?? []);
      }
      return send(404, { message: 'Not Found' });
    });
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
    get mergeStatus() {
      return state.mergeStatus;
    },
    set mergeStatus(status: number) {
      state.mergeStatus = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
