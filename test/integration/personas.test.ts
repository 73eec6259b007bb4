import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, guardedWorkspace } from '../support/guarded.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

const READER =
  '---\ntools: "Read,Grep,Glob"\ndisallowed_tools: [Write, Edit]\nauto_approve_tools: [Read, Grep, Glob]\nmax_turns: 8\n---\n# Reader\n\nRead, never write.\n';

function promptOf(root: string, sessionId: unknown): string {
  return fs.readFileSync(
    path.join(root, 'docs', 'sessions', `${String(sessionId)}-prompt.md`),
    'utf8',
  );
}

describe('personas in the loop', () => {
  it('scopes the session to the persona, item settings first, and appends its instructions', async () => {
    const { root, env } = await guardedWorkspace();
    fs.writeFileSync(path.join(root, 'agents', 'AGENT_reader.md'), READER);
    fs.writeFileSync(path.join(root, 'project', 'README.md'), '# The project\nIt does things.\n');
    await ralph(
      root,
      ['add', 'Review', '--id', 'review', '--agent', 'reader', '--max-turns', '3'],
      env,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const [argv] = calls(root);
    const after = (flag: string) => argv![argv!.indexOf(flag) + 1];
    expect(after('--tools')).toBe('Read,Grep,Glob');
    expect(after('--disallowedTools')).toBe('Write,Edit');
    expect(after('--allowedTools')).toBe('Read,Grep,Glob');
    expect(after('--max-turns')).toBe('3');
    const [record] = readSessions(root);
    expect(record).toMatchObject({ persona: 'reader' });
    const prompt = promptOf(root, record?.sessionId);
    const order = [
      '# Identity',
      '# Project context',
      '## README.md',
      'It does things.',
      '# Persona: reader',
      'Read, never write.',
      '# Assignment',
    ];
    const at = order.map((s) => prompt.indexOf(s));
    expect(
      at.every((i) => i >= 0),
      prompt,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('uses the workspace default persona when the item names none', async () => {
    const { root, env } = await guardedWorkspace({ defaults: { agent: 'reader' } });
    fs.writeFileSync(path.join(root, 'agents', 'AGENT_reader.md'), READER);
    await ralph(root, ['add', 'Review', '--id', 'r'], env);
    await ralph(root, ['run', '--drain'], env);
    expect(readSessions(root)[0]).toMatchObject({ persona: 'reader' });
  });

  it('fails an item whose persona is missing or broken before spawning, and goes on with the rest', async () => {
    const { root, env } = await guardedWorkspace();
    const broken = path.join(root, 'agents', 'AGENT_broken.md');
    fs.writeFileSync(broken, '---\nmax_turn: 3\n---\nx');
    // add refuses a broken persona, naming its file and key ...
    const refused = await ralph(root, ['add', 'Broken', '--agent', 'broken'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/AGENT_broken\.md \(frontmatter\) is invalid/);
    // ... so this one breaks after its item was added.
    fs.writeFileSync(broken, 'Fine for now.\n');
    // A persona removed after its item was added (add refuses a missing one).
    const nobody = path.join(root, 'agents', 'AGENT_nobody.md');
    fs.writeFileSync(nobody, 'Soon gone.\n');
    await ralph(
      root,
      ['add', 'Ghost', '--id', 'ghost', '--agent', 'nobody', '--priority', '2'],
      env,
    );
    fs.rmSync(nobody);
    await ralph(
      root,
      ['add', 'Broken', '--id', 'broken', '--agent', 'broken', '--priority', '1'],
      env,
    );
    fs.writeFileSync(broken, '---\nmax_turn: 3\n---\nx');
    await ralph(root, ['add', 'Fine', '--id', 'fine'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    const items = new Map(readQueue(root).items.map((i) => [i.id, i]));
    expect(items.get('ghost')).toMatchObject({
      status: 'failed',
      attempts: 0,
      lastOutcome: 'rejected',
    });
    expect(String(items.get('ghost')?.lastError)).toMatch(
      /persona "nobody" not found: .*AGENT_nobody\.md does not exist/,
    );
    expect(String(items.get('broken')?.lastError)).toMatch(
      /AGENT_broken\.md \(frontmatter\) is invalid:[\s\S]*unknown key "max_turn"/,
    );
    expect(items.get('fine')).toMatchObject({ status: 'done' });
    expect(calls(root)).toHaveLength(1);
  });

  it('lists personas and shows the assembled prompt', async () => {
    const { root } = await guardedWorkspace();
    fs.writeFileSync(path.join(root, 'agents', 'AGENT_reader.md'), READER);
    const listed = await ralph(root, ['agents']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      'reader: tools=Read,Grep,Glob allowed=Read,Grep,Glob disallowed=Write,Edit max_turns=8',
    );
    const shown = await ralph(root, ['agents', 'show', 'reader']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /# sizes \(characters\): identity \d+, project context \d+, persona \d+, bootstrap \d+, total \d+ \(cap 64000\)/,
    );
    expect(shown.stdout).toContain('--tools Read,Grep,Glob');
    expect(shown.stdout).toContain('# Persona: reader');
    fs.writeFileSync(path.join(root, 'agents', 'AGENT_bad.md'), '---\nmodel: [x]\n---\n');
    const broken = await ralph(root, ['agents']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/bad: .*AGENT_bad\.md \(frontmatter\) is invalid/);
  });
});
