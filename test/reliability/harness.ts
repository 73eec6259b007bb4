// The reliability harness: a driver that runs the built CLI as a real process, the invariant
// checker run after every scenario (docs/reliability.md I1-I7), a scan for leaked secrets, and the
// figures each scenario reports for the table printed at the end of the run.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { SESSION_MARKER } from '../../src/agent/env.js';
import { SessionRecordSchema } from '../../src/archive/record.js';
import { QueueFileSchema, type Item } from '../../src/queue/item.js';
import { sessionSurvivors } from '../support/processes.js';
import { ledger, logEvents } from '../support/guarded.js';
import { RALPH_BIN, listFiles, readSessions } from '../support/workspace.js';

/** A count from the environment (the stress run raises them), or the fast default. */
export function scale(name: string, fast: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fast;
}

/** The figures a scenario reports; the global teardown prints them as a table. */
export interface Figures {
  scenario: string;
  items?: number;
  kills?: number;
  lost?: number;
  stuck?: number;
  duplicates?: number;
  orphans?: number;
  leakedSecrets?: number;
  badInputs?: number;
}

export function recordFigures(figures: Figures & { problems?: string[] }): void {
  const file = inject('figuresFile');
  const { problems: _problems, ...counts } = figures;
  if (file !== undefined) fs.appendFileSync(file, `${JSON.stringify(counts)}\n`);
}

/** The built CLI as a real child process on a workspace. */
export interface RunnerProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
  /** What it printed on stdout (log entries as JSON lines when not on a terminal). */
  stdout: () => string;
}

/** Runners still alive, so that a failed test does not leave one running. */
const live = new Set<ChildProcess>();

/** Kills every runner a test started and left alive (use in `afterEach`). */
export function killRunners(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

export function startRunner(
  root: string,
  env: Record<string, string>,
  args: string[] = ['run', '--drain'],
): RunnerProcess {
  const child = spawn(process.execPath, [RALPH_BIN, '-C', root, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

/** Names of files the fake claude and the tests keep in the workspace root. */
const HARNESS_FILES =
  /^(ledger\.txt|calls\.jsonl|.*\.count|.*\.pid|.*\.sha256|secret\.txt|gate.*)$/;

/** Paths and stats of the workspace's files outside the state and archive directories (I7). */
export function snapshot(root: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const file of listFiles(root)) {
    if (file.startsWith('state/') || file.startsWith('docs/sessions/')) continue;
    if (HARNESS_FILES.test(path.basename(file))) continue;
    const stat = fs.statSync(path.join(root, file));
    map.set(file, `${stat.size}:${stat.mtimeMs}`);
  }
  return map;
}

export interface InvariantOptions {
  /** Every id enqueued. */
  ids: string[];
  /** The workspace before the scenario (I7). */
  before?: Map<string, string>;
  /** The runner exited cleanly: no lock directories, no running session record (I5). */
  cleanExit?: boolean;
  /** Statuses that count as finished; default done, failed and cancelled. */
  terminal?: string[];
  /** Check the attempt fence of the ledger (I2); off for behaviours that skip `done`. */
  fence?: boolean;
  /** The queue's items when they are not in the workspace's file (a database's). */
  items?: Item[];
}

export interface InvariantReport {
  lost: number;
  stuck: number;
  duplicates: number;
  orphans: number;
  problems: string[];
}

/** docs/reliability.md I1-I7 on a workspace after a scenario. */
export async function checkInvariants(
  root: string,
  options: InvariantOptions,
): Promise<InvariantReport> {
  const problems: string[] = [];
  const state = path.join(root, 'state');
  const sessionsDir = path.join(root, 'docs', 'sessions');

  // I5 (first: the rest reads these files): every state file valid.
  let items = options.items;
  if (items === undefined) {
    const queueText = fs.readFileSync(path.join(state, 'queue.json'), 'utf8');
    const queue = QueueFileSchema.safeParse(JSON.parse(queueText));
    if (!queue.success) {
      problems.push(`I5 queue.json invalid: ${queue.error.message}`);
      return { lost: options.ids.length, stuck: 0, duplicates: 0, orphans: 0, problems };
    }
    items = queue.data.items;
  }
  const records = readSessions(root);
  for (const record of records) {
    const parsed = SessionRecordSchema.safeParse(record);
    if (!parsed.success) problems.push(`I5 session ${String(record.sessionId)} record invalid`);
  }
  for (const name of ['budget.json', 'waiting.json']) {
    const file = path.join(state, name);
    if (fs.existsSync(file)) {
      try {
        JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        problems.push(`I5 ${name} is not JSON`);
      }
    }
  }
  const index = path.join(sessionsDir, 'index.jsonl');
  if (fs.existsSync(index)) {
    for (const line of fs.readFileSync(index, 'utf8').split('\n').filter(Boolean)) {
      try {
        JSON.parse(line);
      } catch {
        problems.push(`I5 index.jsonl line is not JSON: ${line.slice(0, 80)}`);
      }
    }
  }
  for (const dir of [state, sessionsDir]) {
    for (const name of fs.readdirSync(dir)) {
      if (/\.\d+$|\.tmp$/.test(name)) problems.push(`I5 temp file left: ${name}`);
      if (options.cleanExit === true && name.endsWith('.lock.lock'))
        problems.push(`I5 lock left after a clean exit: ${name}`);
    }
  }
  const runningDir = path.join(state, 'running');
  if (
    options.cleanExit === true &&
    fs.existsSync(runningDir) &&
    fs.readdirSync(runningDir).length > 0
  )
    problems.push('I5 a running session record left after a clean exit');

  // I1: every id exactly once, finished.
  const terminal = new Set(options.terminal ?? ['done', 'failed', 'cancelled']);
  const seen = new Map<string, number>();
  for (const item of items) seen.set(item.id, (seen.get(item.id) ?? 0) + 1);
  let lost = 0;
  let stuck = 0;
  for (const id of options.ids) {
    const count = seen.get(id) ?? 0;
    if (count === 0) lost++;
    if (count > 1) problems.push(`I1 ${id} appears ${count} times`);
  }
  for (const item of items) {
    if (!terminal.has(item.status)) {
      stuck++;
      problems.push(`I1 ${item.id} is ${item.status}`);
    }
  }
  if (lost > 0) problems.push(`I1 ${lost} items lost`);

  // I2 and I3: the ledger against the recorded attempts and claims.
  const lines = ledger(root).map((line) => line.split(' '));
  let duplicates = 0;
  for (const item of items) {
    const starts = lines.filter(([what, id]) => what === 'start' && id === item.id).length;
    if (starts > item.sessions.length)
      problems.push(`I3 ${item.id}: ${starts} starts for ${item.sessions.length} claims`);
    duplicates += Math.max(0, starts - 1);
    if (options.fence !== false && item.status === 'done') {
      const fenced = lines.some(
        ([what, id, attempt]) =>
          what === 'done' && id === item.id && Number(attempt) === item.attempts,
      );
      if (!fenced) problems.push(`I2 ${item.id}: no ledger done for attempt ${item.attempts}`);
    }
  }

  // I4: nothing of any session alive.
  let orphans = 0;
  for (const sessionId of new Set(items.flatMap((item) => item.sessions))) {
    const alive = await sessionSurvivors(sessionId);
    orphans += alive.length;
    if (alive.length > 0) problems.push(`I4 session ${sessionId} has ${SESSION_MARKER} survivors`);
  }

  // I6: archives whole, byte for byte.
  for (const record of records) {
    const id = String(record.sessionId);
    const file = path.join(sessionsDir, `${id}.ndjson`);
    if (!fs.existsSync(file)) continue;
    const bytes = fs.readFileSync(file);
    const heartbeat = record.heartbeat as { stdoutBytes?: number } | undefined;
    const issues = (record.streamIssues ?? {}) as Record<string, number>;
    const repaired = issues.truncated !== undefined && record.status === 'killed' ? 1 : 0;
    if (
      heartbeat?.stdoutBytes !== undefined &&
      heartbeat.stdoutBytes !== bytes.length - repaired &&
      record.stopReason !== 'output_limit'
    )
      problems.push(`I6 ${id}: ${bytes.length} bytes archived, ${heartbeat.stdoutBytes} read`);
    const flagged = Object.values(issues).reduce((a, b) => a + b, 0);
    const bad = bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .filter((line) => {
        try {
          JSON.parse(line);
          return false;
        } catch {
          return true;
        }
      }).length;
    if (bad > flagged) problems.push(`I6 ${id}: ${bad} bad lines, ${flagged} flagged`);
    const own = path.join(root, `${id}.sha256`);
    if (fs.existsSync(own)) {
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (sha !== fs.readFileSync(own, 'utf8'))
        problems.push(`I6 ${id}: archive sha256 differs from the child's`);
    }
  }

  // I7: nothing written outside the state and archive directories.
  if (options.before !== undefined) {
    const after = snapshot(root);
    for (const [file, stat] of after) {
      if (options.before.get(file) !== stat) problems.push(`I7 ${file} was written`);
    }
  }
  return { lost, stuck, duplicates, orphans, problems };
}

/** The forms a secret may take in text: raw, base64 at each alignment, JSON- and URL-escaped. */
export function secretForms(secret: string): string[] {
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  for (const prefix of ['', 'x', 'xy']) {
    // The stable middle of the base64 of the secret after `prefix.length` bytes.
    const encoded = Buffer.from(prefix + secret).toString('base64');
    const skip = Math.ceil((prefix.length * 4) / 3) + 2;
    forms.add(encoded.slice(skip, encoded.length - 4));
  }
  return [...forms].filter((form) => form.length >= 8);
}

/**
 * Counts the forms of `secrets` found in the files ralph writes for people: the log, session
 * records, summaries, contexts and the index. The raw `.ndjson`/`.err` archive is evidence
 * and keeps the agent's bytes (0600 in a 0700 directory); `extraText` adds rendered output.
 */
export function countLeaks(root: string, secrets: string[], extraText: string[] = []): number {
  const texts = [...extraText];
  for (const dir of ['state', 'docs/sessions']) {
    for (const file of listFiles(path.join(root, dir))) {
      if (/\.(ndjson|err)$/.test(file)) continue;
      texts.push(fs.readFileSync(path.join(root, dir, file), 'utf8'));
    }
  }
  let leaks = 0;
  for (const secret of secrets)
    for (const form of secretForms(secret))
      for (const text of texts) if (text.includes(form)) leaks++;
  return leaks;
}

/** Resident set size and open descriptors of a process, from /proc. */
export function processUsage(pid: number): { rssBytes: number; fds: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return { rssBytes: Number(rss ?? 0) * 1024, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return undefined;
  }
}

export { logEvents };

/**
 * A kill schedule's random numbers: CHAOS_SEED replays a schedule a failure printed (the same
 * seed gives the same intervals; what the runner does in them still varies with the machine).
 */
export function chaosRandom(): { seed: number; next: () => number } {
  const given = process.env.CHAOS_SEED;
  const seed = given === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(given);
  // mulberry32: small, and good enough to spread kills.
  let state = seed >>> 0;
  return {
    seed,
    next: () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** What a chaos run did: the kills, the seed of their schedule, and when each came. */
export interface KillSchedule {
  killed: number;
  seed: number;
  /** Milliseconds after each runner's start that it was killed. */
  killedAfterMs: number[];
}

/**
 * Runs `ralph run --drain` again and again, SIGKILLing up to `kills` of the runners at
 * random times between 0.3 s and `maxIntervalMs` (seeded: see `chaosRandom`), until one drains
 * the queue. Between runs the retry times of failed items are let pass (no runner is alive
 * then, and the file is rewritten atomically): the runner's own rules, faster.
 */
export async function killUntilDrained(
  root: string,
  env: Record<string, string>,
  kills: number,
  maxIntervalMs: number,
): Promise<KillSchedule> {
  const queueFile = path.join(root, 'state', 'queue.json');
  const random = chaosRandom();
  const schedule: KillSchedule = { killed: 0, seed: random.seed, killedAfterMs: [] };
  for (let round = 0; round < kills + 50; round++) {
    const runner = startRunner(root, env);
    const after = Math.round(300 + random.next() * (maxIntervalMs - 300));
    const timer =
      schedule.killed < kills ? setTimeout(() => runner.child.kill('SIGKILL'), after) : undefined;
    const { code, signal } = await runner.exited;
    clearTimeout(timer);
    if (signal === 'SIGKILL') {
      schedule.killed++;
      schedule.killedAfterMs.push(after);
    } else if (code === 0) return schedule;
    else
      throw new Error(
        `the runner exited with ${code} (CHAOS_SEED=${schedule.seed}): ${runner.stderr()}\n${explainItems(root, [])}`,
      );
    // A database's queue has no file: its runner's retry backoff is left at 0.
    if (!fs.existsSync(queueFile)) continue;
    const queue = JSON.parse(fs.readFileSync(queueFile, 'utf8')) as {
      items: { retryAfter?: string }[];
    };
    if (queue.items.some((i) => i.retryAfter !== undefined)) {
      for (const item of queue.items) delete item.retryAfter;
      fs.writeFileSync(`${queueFile}.new`, JSON.stringify(queue, null, 2));
      fs.renameSync(`${queueFile}.new`, queueFile);
    }
  }
  throw new Error(`the queue did not drain after ${kills + 50} runs (CHAOS_SEED=${schedule.seed})`);
}

/** Lines of a command's output, or what it said when it failed. */
function tryRun(file: string, args: string[], cwd: string): string {
  try {
    return execFileSync(file, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    return `(${file} ${args.join(' ')} failed: ${String((error as { stderr?: string }).stderr ?? error).trim()})`;
  }
}

/**
 * Everything a person needs to explain a broken invariant from the run's own output: for each
 * item named in `problems` (all items that are not done when none is named), its queue entry,
 * its running record, its worktree and branch, and the last log entries about it.
 */
export function explainItems(
  root: string,
  problems: readonly string[],
  /** The queue's items when they are not in the workspace's file (a database's). */
  queued?: readonly Item[],
): string {
  const file = path.join(root, 'state', 'queue.json');
  const all: readonly Record<string, unknown>[] =
    queued ??
    (fs.existsSync(file)
      ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { items: Record<string, unknown>[] }).items
      : []);
  const named = new Set(problems.flatMap((p) => /^I\d (\S+)/.exec(p)?.[1] ?? []));
  const items = all.filter((i) => (named.size > 0 ? named.has(String(i.id)) : i.status !== 'done'));
  const running = path.join(root, 'state', 'running');
  const records = fs.existsSync(running)
    ? fs.readdirSync(running).map((n) => fs.readFileSync(path.join(running, n), 'utf8'))
    : [];
  const log = logEvents(root);
  const lines: string[] = [];
  for (const item of items.slice(0, 10)) {
    const id = String(item.id);
    const { body: _body, ...fields } = item;
    lines.push(`item ${id}: ${JSON.stringify(fields)}`);
    for (const record of records.filter((r) => r.includes(`"itemId":"${id}"`)))
      lines.push(`  running record: ${record.slice(0, 600)}`);
    const worktree = path.join(root, 'worktrees', id);
    if (fs.existsSync(worktree))
      lines.push(
        `  worktree ${worktree}: HEAD ${tryRun('git', ['rev-parse', '--abbrev-ref', 'HEAD'], worktree)}, status ${JSON.stringify(tryRun('git', ['status', '--porcelain'], worktree))}`,
        `  ${tryRun('ls', ['-la', worktree], worktree).split('\n').join('\n  ')}`,
      );
    else lines.push(`  no worktree at ${worktree}`);
    const about = log.filter((e) => JSON.stringify(e).includes(`"${id}"`)).slice(-8);
    for (const entry of about) lines.push(`  log: ${JSON.stringify(entry).slice(0, 400)}`);
  }
  return lines.join('\n');
}
