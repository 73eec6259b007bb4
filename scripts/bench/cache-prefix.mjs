// Row (`node scripts/bench.mjs --only cache-prefix`, or this file alone): how much of an item's
// first request the model API's prompt cache can serve from the item before it. The real claude
// against the fake model API, two `lean` items of one night in a row (git mode: each in a
// worktree of its own); the second item's first request is set against the first item's in the
// cache's order (tools, system blocks, then messages), up to the last cache breakpoint the CLI
// set on the second: the share of those bytes that is the same, from the start, as the first's.
// Its target: no byte that differs per item before the item's own text (its assignment).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, benchEnv, run, workspace } from './lib.mjs';
import { startModelApis } from './fixtures/model-apis.mjs';
import { SETUPS } from './clis.mjs';

const ITEMS = [
  { id: 'parser', title: 'Fix the parser', body: 'Fix the off-by-one error in src/parser.ts.' },
  { id: 'readme', title: 'Document the flags', body: 'Describe every CLI flag in the README.' },
];

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** A repository the items work on. */
function repository() {
  const repo = tempDir('ralph-bench-cache-');
  const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# parser\n\nA line parser.\n');
  git('add', '.');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'init');
  return repo;
}

/** A request's content in the cache's order: each block as text, and which carry a breakpoint. */
function blocks(body) {
  const out = [];
  const add = (block) => {
    const marked = typeof block === 'object' && block !== null && 'cache_control' in block;
    const { cache_control: _mark, ...rest } = marked ? block : { value: block };
    out.push({ text: JSON.stringify(marked ? rest : block), marked });
  };
  for (const tool of body.tools ?? []) add(tool);
  for (const block of typeof body.system === 'string' ? [body.system] : (body.system ?? []))
    add(block);
  for (const message of body.messages ?? [])
    for (const block of typeof message.content === 'string' ? [message.content] : message.content)
      add(block);
  return out;
}

/**
 * The share of `next`'s cacheable bytes that `first` has the same from the start, and the bytes
 * a cache written by `first` serves to `next`.
 */
export function cachedShare(first, next) {
  const a = blocks(first);
  const b = blocks(next);
  const last = b.findLastIndex((block) => block.marked);
  if (last === -1) return { share: 0, cacheable: 0, same: 0 };
  const cacheable = b.slice(0, last + 1).reduce((n, block) => n + block.text.length, 0);
  let same = 0;
  // What a cache read can serve: the blocks up to the last breakpoint before the first change.
  let served = 0;
  let upTo = 0;
  for (let i = 0; i <= last; i++) {
    const x = a[i]?.text ?? '';
    const y = b[i].text;
    if (x === y) {
      same += y.length;
      upTo += y.length;
      if (b[i].marked) served = upTo;
      continue;
    }
    let k = 0;
    while (k < x.length && k < y.length && x[k] === y[k]) k++;
    same += k;
    break;
  }
  return { share: same / cacheable, cacheable, same, served };
}

/** Where the item's own text (its assignment) begins in a request, in the cache's order. */
export function itemTextAt(body, marker) {
  let at = 0;
  for (const block of blocks(body)) {
    const found = block.text.indexOf(marker);
    if (found !== -1) return at + found;
    at += block.text.length;
  }
  return -1;
}

/** Rules a person accepted, as the lessons' state keeps them: `count` of them, each in force. */
function acceptedRules(count) {
  const at = new Date().toISOString();
  return {
    version: 1,
    rules: Array.from({ length: count }, (_, i) => ({
      id: `R${i + 1}`,
      text: `Rule ${i + 1}: never edit the generated files under dist/${i}/ by hand.`,
      kind: 'follow',
      scope: [`dist/${i}/**`],
      evidence: ['L1'],
      proposal: 'P1',
      status: 'accepted',
      proposedAt: at,
      decided: { by: 'bench', at },
      into: 'workspace',
    })),
  };
}

/**
 * The second item's first request set against the first item's, with `rules` accepted rules in
 * force (none: the night before any lesson).
 */
export async function cachePrefixOf(rules = 0) {
  const api = await startModelApis();
  try {
    const repo = repository();
    const { config, env } = SETUPS.claude(api.url);
    const root = workspace(config.clis.claude.command, {
      ...config,
      git: { enabled: true },
      defaults: { workDir: repo, maxTurns: 2, lean: true },
    });
    const now = Date.now();
    if (rules > 0)
      fs.writeFileSync(
        path.join(root, 'state', 'lessons.json'),
        JSON.stringify(acceptedRules(rules)),
      );
    fs.writeFileSync(
      path.join(root, 'state', 'queue.json'),
      JSON.stringify({
        version: 1,
        items: ITEMS.map((item, i) => ({
          ...item,
          status: 'pending',
          attempts: 0,
          sessions: [],
          createdAt: new Date(now + i).toISOString(),
        })),
      }),
    );
    await run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv(env) });
    const first = (item) => {
      const found = api.requests.find(
        ({ url, body }) =>
          url.startsWith('/v1/messages') && body.includes(item.body) && body.includes('"tools"'),
      );
      if (found === undefined) throw new Error(`cache-prefix benchmark: no request of ${item.id}`);
      return JSON.parse(found.body);
    };
    const second = first(ITEMS[1]);
    const prefix = cachedShare(first(ITEMS[0]), second);
    // The item's own text: its assignment, the first words that name it.
    const own = itemTextAt(second, '# Assignment');
    const system = JSON.stringify(second.system ?? '').length;
    for (const d of [root, repo, env.HOME]) fs.rmSync(d, { recursive: true, force: true });
    return { ...prefix, own, system, rulesSeen: JSON.stringify(second.system).includes('# Rules') };
  } finally {
    await api.close();
  }
}

export async function cachePrefixFigures() {
  const { share, cacheable, same, served, own } = await cachePrefixOf();
  return {
    name: "cacheable prefix: claude's second item's first request, the same as the first's (lean)",
    value: share,
    unit: 'of its cacheable bytes',
    measure: 'ratio',
    target: "the first byte that differs is in the item's own text",
    ok: own !== -1 && same >= own,
    detail: `${same} of ${cacheable} bytes up to its last cache breakpoint the same as the first item's, from the start; the item's own text begins at byte ${own}, so ${same >= own ? 'no byte before it differs' : `${own - same} bytes before it differ`}; a cache read serves ${served} (${((served / cacheable) * 100).toFixed(0)}%), up to the last breakpoint before the first change`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(JSON.stringify(await cachePrefixFigures(), null, 2));
