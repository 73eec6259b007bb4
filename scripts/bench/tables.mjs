// The tables of figures, rendered from one bench.json (one run of scripts/bench.mjs): all of
// them in docs/performance.md, a few headline rows in the README. `npm run docs` writes them
// (`npm run bench:record` first keeps a full run's bench.json), and a test holds the pages to them.

/** What each group of rows measures, said above its table. */
const GROUPS = {
  core: "ralph's own cost: the loop, the stream parser, the guards, the queue file, start-up and the session index.",
  reap: "The scan of the machine's processes after every session for what it left running (its process group, and whatever carries its variable), against reading each process's `/proc/<pid>/stat` once.",
  serve:
    "The server: the latency is from a line appended to a session's archive to its event in a real Chromium page's `EventSource`.",
  clis: "The agent CLIs: each CLI's real binary against a fake model API (`scripts/bench/fixtures/model-apis.mjs`), items through `ralph run --drain` against the command ralph ran for the first item, run as many times by a bare loop, both in a home the CLI has run in once already. The figure is the whole run's ratio; the detail gives what ralph adds to each item (its work before the spawn and after the exit, medians over the items), the CLI's run under ralph beside the bare run's, and the start and end ralph pays once a night.",
  workers:
    'Workers and git mode: items of an agent that takes 500 ms, each in a work dir of its own, with 1, 2 and 4 workers; and items of an instant agent in one repository with git mode on and off.',
  environment:
    "A worktree's dependencies: a project with real registry dependencies and a lockfile (eslint, vitest, dependency-cruiser and what they need, installed offline from the npm cache). A new worktree ready as ralph's setup stage makes it (git's `worktree add`, then its own copy of the tree built once for the lockfile) against a cold `npm ci --offline` in a new worktree of the same project and against a bare `worktree add`, in the same run; the other ways of giving the tree (a copy when it is needed, hard links, a symlink) timed beside it on the same tree.",
  sandbox:
    "The sandbox: items of an instant agent through `ralph run --drain` in bubblewrap (ralph's egress proxy on, as by default) against the same items without it.",
  'first-request':
    "What a session sends before it works: each CLI's real binary against the fake model API, the size of its first request (the first to carry the task and the tools) for the same task run bare, as ralph's session of an item, and with `lean` (see below).",
  'cache-prefix':
    "The prompt cache across items: the real claude against the fake model API, two `lean` items of one night in a row, each in a worktree of its own; the second item's first request set against the first item's in the cache's order (tools, system blocks, then the first message's blocks), up to the last cache breakpoint claude sets: the share of those bytes that is the same as the first's from the start, and whether the first byte that differs is in the item's own text (see [the cacheable prefix](#the-cacheable-prefix-across-items)).",
  landing:
    "Landing: 20 branches that do not conflict, an instant land gate (`true`) checking each merge, landed by `ralph land` and timed as a night's lander lands them (from its first landing's start to its last landing recorded, in its log: a night starts once, not once a landing), against a loop doing the same by hand in a worktree of the same repository (`git merge --no-ff`, then the gate), in the same run. The detail gives the whole `ralph land` command beside it (node's start, loading ralph, validating the configuration and queue the benchmark wrote by hand), and the loop checking the worktree after each gate as the lander does.",
  trackers:
    "The trackers: what a Linear import asks of Linear's rate limit (a key has so many requests an hour), counted on the suite's fake Linear: ralph's one document a page of issues with what they wait for, against the SDK's models, which ask for each related entity (state, creator, sub-issues, relations) apart.",
  fleet:
    "The shared queue: claims by 1, 4 and 16 claimers side by side on a queue of 100,000 items (a quarter done, three priorities) in a Postgres cluster of the bench's own, against two baselines measured in the same run with the same claimers: a bare one-statement `UPDATE … WHERE seq = (SELECT … FOR UPDATE SKIP LOCKED)` claim, prepared, on a table of the same items (no leases, dependencies or work dirs: the floor), and the queue file. A tenth as many claims as are timed are made first by every contender: the figures are a night's steady state.",
};

/** The group a bench of scripts/bench.mjs belongs to. */
export const groupOf = (bench) => (bench in GROUPS ? bench : 'core');

const MEASURES = { ratio: 'ratio, same run', absolute: 'absolute' };

const format = (v) =>
  Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);

/** Rows as one Markdown table. */
export function table(rows) {
  const header = ['benchmark', 'figure', 'target', 'measure', 'met', 'detail'];
  const cells = rows.map((r) => [
    r.name,
    `${format(r.value)} ${r.unit}`,
    r.target,
    MEASURES[r.measure] ?? r.measure,
    r.ok ? 'yes' : 'NO',
    r.detail,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(header),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.map(line),
  ].join('\n');
}

/** The full tables: the run, then a table a group. */
export function benchTables(results) {
  const run = `From one ${results.quick ? 'quick' : 'full'} run of \`npm run bench\` (\`docs/bench.json\`): ${results.seconds} s, node ${results.node}, ${results.at}${results.machine ? `, ${results.machine}` : ''}.`;
  const parts = [run];
  for (const group of Object.keys(GROUPS)) {
    const rows = results.rows.filter((r) => groupOf(r.bench) === group);
    if (rows.length > 0) parts.push(GROUPS[group], table(rows));
  }
  return parts.join('\n\n');
}

/** The README's rows: what a person deciding whether to run ralph asks first. */
const HEADLINES = [
  'loop overhead (200 items)',
  'ralph status',
  'claude loop overhead (10 items)',
  "first request: ralph's additions to a bare claude -p of the same task",
  'workers speed-up (2 workers, 20 items of 500 ms)',
  'git mode cost (40 items of an instant agent)',
  "landing (20 branches that do not conflict, an instant land gate; the lander's time)",
  'a new worktree ready with its dependencies (231 lockfile entries)',
  "sandbox: bwrap's cost (40 items)",
];

/** The headline figures of the README, one small table. */
export function headlineTable(results) {
  const rows = HEADLINES.map((name) => {
    const row = results.rows.find((r) => r.name === name);
    if (row === undefined) throw new Error(`docs/bench.json: no row "${name}"`);
    return row;
  });
  const cells = rows.map((r) => [
    r.name,
    `${format(r.value)} ${r.unit}`,
    r.target,
    r.ok ? 'yes' : 'NO',
  ]);
  return [['benchmark', 'figure', 'target', 'met'], ...cells]
    .map((c, i) =>
      i === 1 ? `| --- | --- | --- | --- |\n| ${c.join(' | ')} |` : `| ${c.join(' | ')} |`,
    )
    .join('\n');
}

export const START = '<!-- bench tables: written by `npm run docs` from docs/bench.json -->';
export const END = '<!-- end of bench tables -->';
export const HEADLINE_START =
  '<!-- headline figures: written by `npm run docs` from docs/bench.json -->';
export const HEADLINE_END = '<!-- end of headline figures -->';

/** `page` (the file `file`) with the part between `start` and `end` replaced by `text`. */
export function withPart(page, file, start, end, text) {
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${file}: no "${start}" … "${end}" part`);
  return `${page.slice(0, from + start.length)}\n\n${text}\n\n${page.slice(to)}`;
}
