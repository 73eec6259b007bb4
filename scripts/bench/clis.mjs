// Rows: ralph's cost above each agent CLI run bare. For every CLI, its real binary (the pinned
// devDependency) against a fake model API on 127.0.0.1: `ralph run --drain` over N items,
// against the command ralph ran for the first item run N times by a bare loop (stdout to a
// file, the prompt on stdin where the CLI reads it there, claude's stream-json input as ralph
// gave it), both in a home the CLI has run in once already. CLIs differ widely in start-up, so
// the figure is per CLI: the ratio of the whole run, and the milliseconds ralph adds to each
// item, broken down (before the spawn, the CLI's run, after its exit), beside the run's own
// start and end, which a night pays once.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, benchEnv, elapsed, fillQueue, run, stats, workspace } from './lib.mjs';
import { claudeEnvFor, startModelApis } from './fixtures/model-apis.mjs';

const bin = (name) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

function home() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-home-'));
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value));
}

/** Each CLI's configuration and environment, pointed at the fake API at `url`. */
export const SETUPS = {
  claude: (url) => ({
    config: { clis: { claude: { command: [bin('claude')] } } },
    env: claudeEnvFor(url, home()),
  }),
  codex: (url) => ({
    config: {
      clis: {
        codex: {
          command: [
            bin('codex'),
            '-c',
            'model_provider="bench"',
            '-c',
            'model_providers.bench.name="bench"',
            '-c',
            `model_providers.bench.base_url="${url}/v1"`,
            '-c',
            'model_providers.bench.env_key="OPENAI_API_KEY"',
          ],
        },
      },
    },
    env: { HOME: home(), OPENAI_API_KEY: 'sk-bench-dummy-key-0123456789' },
  }),
  gemini: (url) => {
    const dir = home();
    writeJson(path.join(dir, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    });
    return {
      config: { clis: { gemini: { command: [bin('gemini'), '-m', 'gemini-2.5-flash'] } } },
      env: { HOME: dir, GEMINI_API_KEY: 'bench-dummy-key-0123456789', GOOGLE_GEMINI_BASE_URL: url },
    };
  },
  opencode: (url) => ({
    config: { clis: { opencode: { command: [bin('opencode')] } } },
    env: {
      HOME: home(),
      OPENAI_API_KEY: 'sk-bench-dummy-key-0123456789',
      OPENCODE_DISABLE_MODELS_FETCH: 'true',
      OPENCODE_DISABLE_AUTOUPDATE: 'true',
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        provider: {
          bench: {
            npm: '@ai-sdk/openai-compatible',
            name: 'bench',
            options: { baseURL: `${url}/v1`, apiKey: '{env:OPENAI_API_KEY}' },
            models: { m: { name: 'm' } },
          },
        },
        model: 'bench/m',
      }),
    },
  }),
  pi: (url) => {
    const dir = home();
    writeJson(path.join(dir, '.pi', 'agent', 'models.json'), {
      providers: {
        bench: {
          baseUrl: `${url}/v1`,
          api: 'openai-completions',
          apiKey: 'OPENAI_API_KEY',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: 'm' }],
        },
      },
    });
    writeJson(path.join(dir, '.pi', 'agent', 'settings.json'), {
      defaultProvider: 'bench',
      defaultModel: 'm',
    });
    return {
      // pi holds no path rules: its items get rules without them.
      config: {
        clis: { pi: { command: [bin('pi')] } },
        defaults: { allowedTools: ['Bash', 'Read', 'Edit', 'Glob', 'Grep'] },
      },
      env: { HOME: dir, OPENAI_API_KEY: 'sk-bench-dummy-key-0123456789' },
    };
  },
};

/** The first session's record: the command ralph ran, where, and its prompt file. */
function firstSession(root) {
  const dir = path.join(root, 'docs', 'sessions');
  const records = fs
    .readdirSync(dir)
    .filter((name) => /^[0-9a-f-]{36}\.json$/.test(name))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')))
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const record = records[0];
  return {
    ...record,
    prompt: path.join(dir, `${record.sessionId}-prompt.md`),
    input: path.join(dir, `${record.sessionId}-input.jsonl`),
  };
}

/**
 * Where ralph's time goes, from its log and records: for each item, before the spawn (the last
 * item's settle and archive, this one's claim and preparation), from the spawn to the exit the
 * runner saw (the CLI's run under ralph's supervision), and after the exit (its checks, settle
 * and archive, up to the log's `session_ended`), "before" over the items after the first; and
 * the run's own start (from `startedAt`, when the bench started the command, to its first
 * session's start: node, loading ralph, validating, the lock, recovery and the first claim)
 * and end (from its last `session_ended` to `endedAt`, when the command had exited).
 */
function phases(root, startedAt, endedAt) {
  const log = fs
    .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const at = (event) =>
    new Map(log.filter((e) => e.event === event).map((e) => [e.session, Date.parse(e.time)]));
  const started = at('session_started');
  const ended = at('session_ended');
  const dir = path.join(root, 'docs', 'sessions');
  const sessions = [...started.keys()]
    .map((id) => ({
      started: started.get(id),
      exited: Date.parse(JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf8')).endedAt),
      ended: ended.get(id),
    }))
    .sort((a, b) => a.started - b.started);
  const before = [];
  const running = [];
  const after = [];
  for (const [i, s] of sessions.entries()) {
    running.push(s.exited - s.started);
    after.push(s.ended - s.exited);
    if (i > 0) before.push(s.started - sessions[i - 1].ended);
  }
  return {
    before,
    running,
    after,
    start: [sessions[0].started - startedAt],
    end: [endedAt - sessions.at(-1).ended],
  };
}

async function oneCli(name, { items, runs }, url) {
  const ralph = [];
  const bare = [];
  const split = { before: [], running: [], after: [], start: [], end: [] };
  const { config, env: cliEnv } = SETUPS[name](url);
  const env = benchEnv(cliEnv);
  const queued = (count) => {
    const root = workspace([bin('claude')], {
      ...config,
      defaults: { cli: name, ...config.defaults },
    });
    fillQueue(root, count);
    return root;
  };
  // A CLI's first run in a new home sets it up (codex's state, opencode's caches), which
  // neither side should pay: one item first, untimed, and every run after in the same home.
  const warm = queued(1);
  await run(process.execPath, [BIN, '-C', warm, 'run', '--drain'], { env });
  fs.rmSync(warm, { recursive: true, force: true });
  for (let r = 0; r < runs; r++) {
    const root = queued(items);
    const startedAt = Date.now();
    ralph.push(
      await elapsed(() => run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env })),
    );
    const endedAt = Date.now();
    const queue = JSON.parse(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8'));
    const done = queue.items.filter((i) => i.status === 'done').length;
    if (done !== items) throw new Error(`${name} benchmark: ${done} of ${items} items done`);
    for (const [phase, times] of Object.entries(phases(root, startedAt, endedAt)))
      split[phase].push(...times);
    const session = firstSession(root);
    const [file, ...args] = session.command;
    const out = path.join(root, 'bare.ndjson');
    bare.push(
      await elapsed(async () => {
        for (let i = 0; i < items; i++) {
          // A CLI that takes ralph's session id refuses one it has seen.
          const fresh = args.map((arg, k) => (args[k - 1] === '--session-id' ? randomUUID() : arg));
          // claude reads its first prompt as stream-json on stdin; the others, the prompt file.
          const stdin = fs.openSync(name === 'claude' ? session.input : session.prompt, 'r');
          const stdout = fs.openSync(out, 'w');
          await run(file, fresh, { cwd: session.workDir, env, stdio: [stdin, stdout, 'ignore'] });
          fs.closeSync(stdout);
          fs.closeSync(stdin);
        }
      }),
    );
    fs.rmSync(root, { recursive: true, force: true });
  }
  fs.rmSync(cliEnv.HOME, { recursive: true, force: true });
  const r = stats(ralph);
  const b = stats(bare);
  const ratio = r.median / b.median;
  const median = (times) => stats(times).median;
  const ms = (times) => median(times).toFixed(0);
  // What ralph adds to each item: its own work between the CLI's runs (its median before the
  // spawn and after the exit). The CLI's run under ralph is given beside the bare run's; any
  // difference between them is in the ratio.
  const perItem = median(split.before) + median(split.after);
  const ok = ratio <= 1.25 && perItem <= 50;
  return {
    name: `${name} loop overhead (${items} items)`,
    value: ratio,
    unit: 'x bare CLI',
    measure: 'ratio',
    target: '<= 1.25, <= 50 ms an item',
    ok,
    detail: `ralph ${r.median.toFixed(0)} ms, ${name} bare ${b.median.toFixed(0)} ms; ralph adds ${perItem.toFixed(0)} ms an item (${ms(split.before)} ms before the spawn, ${ms(split.after)} ms after the exit; the CLI's run ${ms(split.running)} ms from the spawn to the exit, bare ${(b.median / items).toFixed(0)} ms) and ${ms(split.start)} ms to start and ${ms(split.end)} ms to end the run, once a night`,
  };
}

/** One row per agent CLI (RALPH_BENCH_CLI=<name>: that one only). */
const only = process.env.RALPH_BENCH_CLI;
export async function cliFigures(size) {
  const api = await startModelApis();
  try {
    const rows = [];
    for (const name of Object.keys(SETUPS).filter((n) => only === undefined || n === only)) {
      process.stderr.write(`bench: clis: ${name}…\n`);
      rows.push(await oneCli(name, size, api.url));
    }
    return rows;
  } finally {
    await api.close();
  }
}
