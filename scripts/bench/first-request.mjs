// Rows: what a session sends before it works. The real claude against a fake Anthropic API that
// records each request: the first request of `claude -p <task>` run bare, of ralph's session
// of an item with the same task, and of the same item with `lean`, in this run. Their sizes in
// bytes (and tokens at ~4 bytes a token: the fake has no tokenizer); each row a ratio of two.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, benchEnv, run, workspace } from './lib.mjs';
import { claudeEnvFor, startModelApis } from './fixtures/model-apis.mjs';

const CLAUDE = fileURLToPath(new URL('../../node_modules/.bin/claude', import.meta.url));
const TASK = 'Fix the off-by-one error in src/parser.ts: the last token of a line is dropped.';

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

const claudeEnv = (url) => benchEnv(claudeEnvFor(url, tempDir('ralph-bench-home-')));

/** The first request that carries the task, of those sent while `fn` ran. */
async function firstRequest(api, fn) {
  const before = api.messages.length;
  await fn();
  const body = api.messages.slice(before).find((text) => text.includes('off-by-one'));
  if (body === undefined) throw new Error('first-request benchmark: no request carried the task');
  return Buffer.byteLength(body);
}

/** A project a session works in: a README and the file the task names. */
function project() {
  const dir = tempDir('ralph-bench-project-');
  fs.writeFileSync(path.join(dir, 'README.md'), '# parser\n\nA line parser.\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'parser.ts'), 'export const parse = (l: string) => l;\n');
  return dir;
}

async function ralphRequest(api, lean) {
  const dir = project();
  const root = workspace([CLAUDE], {
    clis: { claude: { command: [CLAUDE] } },
    defaults: { workDir: dir, lean, maxTurns: 2 },
  });
  const item = { id: 'item', title: 'Fix the parser', body: TASK, status: 'pending', attempts: 0 };
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({
      version: 1,
      items: [{ ...item, createdAt: new Date().toISOString(), sessions: [] }],
    }),
  );
  const env = claudeEnv(api.url);
  const bytes = await firstRequest(api, () =>
    run(process.execPath, [BIN, '-C', root, 'run', '--once'], { env }),
  );
  for (const d of [root, dir, env.HOME]) fs.rmSync(d, { recursive: true, force: true });
  return bytes;
}

async function bareRequest(api) {
  const dir = project();
  const env = claudeEnv(api.url);
  const bytes = await firstRequest(api, () =>
    run(CLAUDE, ['-p', TASK, '--output-format', 'stream-json', '--verbose', '--max-turns', '2'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
    }),
  );
  for (const d of [dir, env.HOME]) fs.rmSync(d, { recursive: true, force: true });
  return bytes;
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB (~${Math.round(bytes / 4)} tokens)`;

export async function firstRequestFigures() {
  const api = await startModelApis();
  try {
    const bare = await bareRequest(api);
    const ralph = await ralphRequest(api, false);
    const lean = await ralphRequest(api, true);
    return [
      {
        name: "first request: ralph's additions to a bare claude -p of the same task",
        value: ralph / bare,
        unit: 'x bare',
        measure: 'ratio',
        target: '<= 1.05',
        ok: ralph / bare <= 1.05,
        detail: `ralph ${kb(ralph)}, bare ${kb(bare)}: +${(((ralph - bare) / bare) * 100).toFixed(1)}%`,
      },
      {
        name: 'first request: lean against ralph without it',
        value: lean / ralph,
        unit: "x ralph's",
        measure: 'ratio',
        target: '<= 0.7',
        ok: lean / ralph <= 0.7,
        detail: `lean ${kb(lean)}, ralph ${kb(ralph)}: ${(((ralph - lean) / ralph) * 100).toFixed(0)}% saved`,
      },
    ];
  } finally {
    await api.close();
  }
}
