// Rows: what a session sends before it works. Each CLI's real binary against a fake model API
// that records every request: the first request (the first to carry the task and the tools) of
// the CLI run bare with the task and the tools ralph's rules give its session, and of ralph's
// session of an item with the same task, in this run; for every CLI but pi also of the same
// item with `lean`. Their sizes in bytes (and tokens at ~4 bytes a token: the fake has no
// tokenizer); each row a ratio of two.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, benchEnv, run, workspace } from './lib.mjs';
import { startModelApis } from './fixtures/model-apis.mjs';
import { SETUPS } from './clis.mjs';

const TASK = 'Fix the off-by-one error in src/parser.ts: the last token of a line is dropped.';

/**
 * Each CLI's own headless run of the task, offered the tools ralph's rules give its session
 * (gemini offers a tool that asks only when it is allowed; pi's are named).
 */
const BARE = {
  claude: ['-p', TASK, '--output-format', 'stream-json', '--verbose', '--max-turns', '2'],
  codex: ['exec', '--json', '--skip-git-repo-check', TASK],
  gemini: [
    '--skip-trust',
    '--allowed-tools',
    'run_shell_command,replace,write_file',
    '-p',
    TASK,
    '-o',
    'stream-json',
  ],
  opencode: ['run', '--format', 'json', TASK],
  pi: ['--tools', 'read,bash,edit,write,grep,find,ls', '-p', '--mode', 'json', TASK],
};

/**
 * The CLIs `lean` trims, and the most it must leave: claude's a third off; codex's, gemini's
 * and opencode's only what their options can drop (tools of an interactive session), so less
 * than whole. pi has nothing to drop.
 */
const LEAN_TARGETS = { claude: 0.7, codex: 1, gemini: 1, opencode: 1 };

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** The size of the first request carrying the task and the tools, of those sent while `fn` ran. */
async function firstRequest(api, name, fn) {
  const before = api.requests.length;
  await fn();
  const request = api.requests
    .slice(before)
    .find(({ body }) => body.includes('off-by-one') && body.includes('"tools"'));
  if (request === undefined)
    throw new Error(`first-request benchmark: no request of ${name} carried the task`);
  return Buffer.byteLength(request.body);
}

/** A project a session works in: a README and the file the task names. */
function project() {
  const dir = tempDir('ralph-bench-project-');
  fs.writeFileSync(path.join(dir, 'README.md'), '# parser\n\nA line parser.\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'parser.ts'), 'export const parse = (l: string) => l;\n');
  return dir;
}

async function ralphRequest(api, name, lean) {
  const dir = project();
  const { config, env } = SETUPS[name](api.url);
  const root = workspace(config.clis[name].command, {
    ...config,
    defaults: { cli: name, workDir: dir, lean, maxTurns: 2, ...config.defaults },
  });
  const item = { id: 'item', title: 'Fix the parser', body: TASK, status: 'pending', attempts: 0 };
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({
      version: 1,
      items: [{ ...item, createdAt: new Date().toISOString(), sessions: [] }],
    }),
  );
  const bytes = await firstRequest(api, name, () =>
    run(process.execPath, [BIN, '-C', root, 'run', '--once'], { env: benchEnv(env) }),
  );
  for (const d of [root, dir, env.HOME]) fs.rmSync(d, { recursive: true, force: true });
  return bytes;
}

async function bareRequest(api, name) {
  const dir = project();
  const { config, env } = SETUPS[name](api.url);
  const [file, ...leading] = config.clis[name].command;
  const bytes = await firstRequest(api, name, () =>
    run(file, [...leading, ...BARE[name]], {
      cwd: dir,
      env: benchEnv(env),
      stdio: ['ignore', 'ignore', 'ignore'],
    }),
  );
  for (const d of [dir, env.HOME]) fs.rmSync(d, { recursive: true, force: true });
  return bytes;
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB (~${Math.round(bytes / 4)} tokens)`;

/** ralph's additions to a bare run of the CLI: its prompt, and what else it gives the CLI. */
function additions(name, ralph, bare) {
  return {
    name:
      name === 'claude'
        ? "first request: ralph's additions to a bare claude -p of the same task"
        : `first request: ralph's additions to a bare ${name} of the same task`,
    value: ralph / bare,
    unit: 'x bare',
    measure: 'ratio',
    target: '<= 1.05',
    ok: ralph / bare <= 1.05,
    detail: `ralph ${kb(ralph)}, bare ${kb(bare)}: +${(((ralph - bare) / bare) * 100).toFixed(1)}%`,
  };
}

export async function firstRequestFigures() {
  const api = await startModelApis();
  try {
    const rows = [];
    for (const name of Object.keys(BARE)) {
      process.stderr.write(`bench: first-request: ${name}…\n`);
      const bare = await bareRequest(api, name);
      const ralph = await ralphRequest(api, name, false);
      rows.push(additions(name, ralph, bare));
      if (!(name in LEAN_TARGETS)) continue;
      const lean = await ralphRequest(api, name, true);
      const target = LEAN_TARGETS[name];
      rows.push({
        name:
          name === 'claude'
            ? 'first request: lean against ralph without it'
            : `first request: lean against ralph without it, ${name}`,
        value: lean / ralph,
        unit: "x ralph's",
        measure: 'ratio',
        target: target === 1 ? '< 1' : `<= ${target}`,
        ok: target === 1 ? lean / ralph < 1 : lean / ralph <= target,
        detail: `lean ${kb(lean)}, ralph ${kb(ralph)}: ${(((ralph - lean) / ralph) * 100).toFixed(0)}% saved`,
      });
    }
    return rows;
  } finally {
    await api.close();
  }
}
