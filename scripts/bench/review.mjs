// Rows: the review stage. What the reviewer is sent: the real claude as a reviewer against a
// fake model API, its first request against the content it reviews (the branch's diff, the task,
// the criteria) and the CLI's own bare request of a one-word prompt, in this run: ralph's
// additions over the content. And what the stage costs per item beside its reviewer's run: N
// items waiting for review, an instant reviewer (a script that answers a verdict); from one
// run's log, the interval between two verdicts recorded (`reviewed`) less the reviewer's own
// session within it (`session_started` to `session_ended`): nested intervals of one run, so the
// difference cannot go below zero whatever the machine's noise.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, FIXTURES, benchEnv, fillQueue, run, stats, workspace } from './lib.mjs';
import { startModelApis } from './fixtures/model-apis.mjs';
import { SETUPS } from './clis.mjs';

const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost'];
const TASK = 'Make the parser keep the last token of a line; it drops it today.';
const CRITERIA = ['parse("a b") returns ["a", "b"]', 'the parser test covers a line of one token'];
const REVIEWER = path.join(FIXTURES, 'verdict-claude.mjs');

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** A repository with `count` branches off main, each changing a file of `lines` lines. */
function repository(count, lines) {
  const repo = tempDir('ralph-bench-review-');
  const git = (...args) =>
    execFileSync('git', args, { cwd: repo, stdio: 'pipe' }).toString().trim();
  git('init', '-q', '-b', 'main');
  const text = (tag) =>
    Array.from(
      { length: lines },
      (_, i) => `export const token${i} = (line) => line.split(' ')[${i}]; // ${tag}\n`,
    ).join('');
  fs.writeFileSync(path.join(repo, 'change.js'), text('before'));
  git('add', '.');
  git(...IDENTITY, 'commit', '-q', '-m', 'init');
  const base = git('rev-parse', 'HEAD');
  const branches = [];
  for (let i = 0; i < count; i++) {
    const branch = `ralph/item-${i}`;
    git('checkout', '-q', '-b', branch, base);
    fs.writeFileSync(path.join(repo, 'change.js'), text(`item ${i}`));
    git('add', '.');
    git(...IDENTITY, 'commit', '-q', '-m', `item ${i}`);
    branches.push(branch);
  }
  git('checkout', '-q', 'main');
  return { repo, base, branches, diff: git('diff', `${base}...${branches[0]}`) };
}

/** A workspace whose items wait for review, each branch checked out in its worktree. */
function reviewing(command, count, lines, config = {}) {
  const { repo, base, branches, diff } = repository(count, lines);
  const root = workspace(command, {
    git: { enabled: true },
    defaults: { workDir: repo },
    review: { enabled: true },
    ...config,
  });
  const now = Date.now();
  const items = branches.map((branch, i) => {
    execFileSync(
      'git',
      ['worktree', 'add', '-q', path.join(root, 'worktrees', `item-${i}`), branch],
      { cwd: repo },
    );
    return {
      id: `item-${i}`,
      title: `Item ${i}`,
      body: TASK,
      criteria: CRITERIA,
      status: 'reviewing',
      attempts: 1,
      branch,
      baseCommit: base,
      sessions: [randomUUID()],
      lastOutcome: 'success',
      createdAt: new Date(now + i).toISOString(),
      finishedAt: new Date(now + 1000 + i).toISOString(),
    };
  });
  fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify({ version: 1, items }));
  return { root, repo, diff };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The reviewer's first request (the first carrying its prompt), and the content it reviews. */
async function firstRequest() {
  const api = await startModelApis();
  try {
    const { config, env } = SETUPS.claude(api.url);
    const { root, repo, diff } = reviewing(config.clis.claude.command, 1, 200);
    const before = api.requests.length;
    await run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv(env) });
    const ralph = api.requests
      .slice(before)
      .find(({ body }) => body.includes('You are a reviewer run by ralph'));
    if (ralph === undefined) throw new Error('review benchmark: no request of the reviewer');
    const bareStart = api.requests.length;
    const [file, ...leading] = config.clis.claude.command;
    await run(
      file,
      [
        ...leading,
        '-p',
        'Review.',
        '--output-format',
        'stream-json',
        '--verbose',
        '--max-turns',
        '1',
      ],
      {
        cwd: repo,
        env: benchEnv(env),
      },
    );
    const bare = api.requests.slice(bareStart).find(({ body }) => body.includes('Review.'));
    if (bare === undefined) throw new Error('review benchmark: no bare request');
    // The content as the request carries it: JSON-escaped.
    const content = Buffer.byteLength(JSON.stringify([TASK, ...CRITERIA, diff].join('\n')));
    for (const d of [root, repo, env.HOME]) fs.rmSync(d, { recursive: true, force: true });
    const sent = Buffer.byteLength(ralph.body);
    const bareBytes = Buffer.byteLength(bare.body);
    const ratio = (sent - bareBytes) / content;
    return {
      name: "review: the reviewer's first request over the CLI's bare one, against the content it reviews (diff, task, criteria)",
      value: ratio,
      unit: 'x content',
      measure: 'ratio',
      target: '<= 1.3',
      ok: ratio <= 1.3,
      detail: `claude's first request ${kb(sent)}, a bare claude -p ${kb(bareBytes)}, the content ${kb(content)}: ralph adds ${kb(sent - bareBytes)}`,
    };
  } finally {
    await api.close();
  }
}

/** The iteration log's entries. */
const logOf = (root) =>
  fs
    .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

/**
 * The stage's own time per item, over `count` items: their authors' sessions run first (each
 * writes a file, which ralph commits on its branch), then the items are put back in line for
 * review, each branch in its worktree, and reviewed in a second run. Each item's own time is
 * the interval since the verdict before it less its reviewer's session within that interval;
 * the median of those, and of the reviewer's sessions.
 */
async function stageTimes(count) {
  const repo = tempDir('ralph-bench-review-');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  fs.writeFileSync(path.join(repo, 'README.md'), '# bench\n');
  execFileSync('git', ['add', '.'], { cwd: repo });
  execFileSync('git', [...IDENTITY, 'commit', '-q', '-m', 'init'], { cwd: repo });
  const root = workspace([process.execPath, REVIEWER], {
    git: { enabled: true },
    defaults: { workDir: repo },
  });
  fillQueue(root, count, { body: TASK, criteria: CRITERIA });
  await run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv() });
  const queueFile = path.join(root, 'state', 'queue.json');
  const queue = JSON.parse(fs.readFileSync(queueFile, 'utf8'));
  for (const item of queue.items) {
    if (item.status !== 'done') throw new Error(`review benchmark: ${item.id} is ${item.status}`);
    item.status = 'reviewing';
    execFileSync(
      'git',
      ['worktree', 'add', '-q', path.join(root, 'worktrees', item.id), item.branch],
      {
        cwd: repo,
      },
    );
  }
  fs.writeFileSync(queueFile, JSON.stringify(queue));
  const configFile = path.join(root, 'ralph.config.json');
  const config = JSON.parse(fs.readFileSync(configFile, 'utf8'));
  fs.writeFileSync(configFile, JSON.stringify({ ...config, review: { enabled: true } }));
  const before = logOf(root).length;
  await run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv() });
  const log = logOf(root).slice(before);
  const reviewed = log.filter((entry) => entry.event === 'reviewed' && entry.overall === 'approve');
  if (reviewed.length !== count)
    throw new Error(`review benchmark: ${reviewed.length} of ${count} approved`);
  const at = (event, session) =>
    Date.parse(log.find((entry) => entry.event === event && entry.session === session).time);
  const own = [];
  const reviewers = [];
  for (let i = 1; i < reviewed.length; i++) {
    const session =
      at('session_ended', reviewed[i].session) - at('session_started', reviewed[i].session);
    reviewers.push(session);
    own.push(Date.parse(reviewed[i].time) - Date.parse(reviewed[i - 1].time) - session);
  }
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(repo, { recursive: true, force: true });
  return { own: stats(own).median, reviewer: stats(reviewers).median };
}

export async function reviewFigures({ items, runs }) {
  const rows = [await firstRequest()];
  const times = [];
  for (let r = 0; r < runs; r++) times.push(await stageTimes(items));
  const overhead = stats(times.map((t) => t.own)).median;
  const reviewer = stats(times.map((t) => t.reviewer)).median;
  rows.push({
    name: `review: the stage's own time per item beside its reviewer's run (${items} items, an instant reviewer)`,
    value: overhead,
    unit: 'ms',
    measure: 'absolute',
    target: '<= 50',
    ok: overhead >= 0 && overhead <= 50,
    detail: `from one run's log: the interval between two verdicts recorded less the reviewer's session within it (${reviewer.toFixed(1)} ms), medians of ${runs} runs: the diff read, the session prepared and archived, the verdict checked and recorded, the worktree removed`,
  });
  return rows;
}
