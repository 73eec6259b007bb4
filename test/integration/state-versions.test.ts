// State files carry a schema version. A workspace written by release 0.1.0 (the files in
// test/fixtures/release-0.1.0, made by that release's own commands) opens unchanged: its old
// names are read as aliases, and its files take the new ones only when ralph writes them anyway.
// A file of a newer schema is refused and left as it is.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QUEUE_SCHEMA } from '../../src/queue/file-schema.js';
import { itemOf } from '../../src/queue/postgres/rows.js';
import { calls, guardedWorkspace } from '../support/guarded.js';
import { FAKE_CLAUDE, ralph, tempDir } from '../support/workspace.js';

const RELEASE_0_1_0 = fileURLToPath(new URL('../fixtures/release-0.1.0', import.meta.url));
const FILES = [
  'ralph.config.json',
  'state/queue.json',
  'state/budget.json',
  'docs/sessions/index.jsonl',
  'docs/sessions/1f0d7a3f-3641-403b-bc65-a98ce8df862b.json',
];

/** A workspace whose files are release 0.1.0's, its old `claude.command` the fake claude. */
async function oldWorkspace() {
  const { root, env } = await guardedWorkspace();
  for (const file of FILES) fs.copyFileSync(path.join(RELEASE_0_1_0, file), path.join(root, file));
  const config = path.join(root, 'ralph.config.json');
  const old = JSON.parse(fs.readFileSync(config, 'utf8')) as { claude: { command: string[] } };
  old.claude.command = [FAKE_CLAUDE];
  fs.writeFileSync(config, JSON.stringify(old, null, 2));
  const bytes = () => FILES.map((file) => fs.readFileSync(path.join(root, file), 'utf8'));
  return { root, env, bytes };
}

const read = (root: string, file: string) =>
  JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')) as Record<string, unknown>;

describe('a workspace written by release 0.1.0', () => {
  it('opens unchanged, resumes the conversation its queue names the old way, and is rewritten with the new names', async () => {
    const { root, env, bytes } = await oldWorkspace();
    const before = bytes();
    for (const args of [['ls'], ['status'], ['show', 'resume-me']]) {
      const result = await ralph(root, args, env);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      if (args[0] === 'show') expect(result.stdout).toContain('session 1f0d7a3f');
    }
    const doctor = await ralph(root, ['doctor'], env);
    expect(doctor.stdout).toMatch(/^ok +queue .*: 2 items$/m);
    expect(doctor.stdout).toMatch(/^ok +budget .*: \$0\.0100 in 1 session$/m);
    expect(bytes()).toEqual(before);

    // Its agents worked in the workspace, which this ralph refuses: the night pauses, saying how
    // to name the project; named, the night goes on.
    const refused = await ralph(root, ['run', '--once'], env);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('no project is named');
    const file = path.join(root, 'ralph.config.json');
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const defaults = { ...(config.defaults as object), workDir: 'project' };
    fs.writeFileSync(file, JSON.stringify({ ...config, defaults }));
    expect((await ralph(root, ['resume'], env)).code).toBe(0);

    // The interrupted item resumes the conversation release 0.1.0 recorded as claudeSessionId.
    const run = await ralph(root, ['run', '--once'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(calls(root).at(-1)).toEqual(
      expect.arrayContaining(['--resume', 'conversation-of-0-1-0']),
    );
    const queue = read(root, 'state/queue.json');
    expect(queue.schema).toBe(QUEUE_SCHEMA);
    expect(JSON.stringify(queue)).not.toContain('claudeSessionId');
    expect(read(root, 'state/budget.json')).toMatchObject({ schema: 1, iterations: 2 });
    // The configuration is the person's: never rewritten.
    expect(read(root, 'ralph.config.json')).toHaveProperty('claude');
  });

  it('names the conversation the old way in a Postgres item too', () => {
    const doc = { id: 'x', title: 'X', claudeSessionId: 'conversation-of-0-1-0' };
    expect(itemOf(doc, 'the test database')).toMatchObject({
      conversationId: 'conversation-of-0-1-0',
    });
  });
});

describe('a state file of a newer schema', () => {
  it.each([
    ['state/queue.json', ['ls'], { schema: QUEUE_SCHEMA + 1, version: 1, items: [] }],
    ['state/budget.json', ['run', '--once'], { schema: 2, totalCostUsd: 0, iterations: 0 }],
  ])('%s is refused with exit 4 and left as it is', async (file, args, content) => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'One', '--id', 'one'], env);
    const target = path.join(root, file);
    const text = `${JSON.stringify(content, null, 2)}\n`;
    fs.writeFileSync(target, text);
    const result = await ralph(root, args, env);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `was written by a newer ralph (its schema ${content.schema}; this one reads up to ${content.schema - 1})`,
    );
    expect(fs.readFileSync(target, 'utf8')).toBe(text);
  });

  it('to import is bad input (exit 2), nothing imported', async () => {
    const { root, env } = await guardedWorkspace();
    const file = path.join(await tempDir(), 'newer.json');
    fs.writeFileSync(file, JSON.stringify({ schema: QUEUE_SCHEMA + 1, version: 1, items: [] }));
    const result = await ralph(root, ['queue', 'import', file], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('was written by a newer ralph');
  });
});

describe('the old claude section of the configuration', () => {
  it('is refused when it gives a key its new name gives too', async () => {
    const { root, env } = await guardedWorkspace({ claude: { command: [FAKE_CLAUDE] } });
    const result = await ralph(root, ['ls'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /claude\.command: the old name of "clis\.claude\.command", which is given too: keep one/,
    );
  });
});
