import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeArgv } from '../../src/agent/clis/claude.js';
import { invocationFor } from '../support/invocation.js';
import { resolveSettings } from '../../src/agent/settings.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { FileCache } from '../../src/lib/file-cache.js';
import { loadPersona, parsePersona } from '../../src/persona/persona.js';
import { PROMPT_CAP_CHARS, assemblePrompt, capContextFile } from '../../src/prompt/assemble.js';
import { tempDir } from '../support/workspace.js';

const FILE = '/ws/agents/AGENT_reader.md';
const defaults = ConfigSchema.parse({}).defaults;

describe('parsePersona', () => {
  it('reads every frontmatter key, in string and list forms, and the instructions', () => {
    const persona = parsePersona(
      'reader',
      FILE,
      '---\ntools: "Read,Grep, Glob"\ndisallowed_tools: ["Write", "Edit"]\nauto_approve_tools:\n  - Bash(git *)\n  - Read\nmax_turns: 10\nmodel: claude-haiku\npermission_mode: plan\n---\n# Reader\n\nOnly read.\n',
    );
    expect(persona).toEqual({
      id: 'reader',
      file: FILE,
      instructions: '# Reader\n\nOnly read.',
      settings: {
        tools: ['Read', 'Grep', 'Glob'],
        disallowedTools: ['Write', 'Edit'],
        allowedTools: ['Bash(git *)', 'Read'],
        maxTurns: 10,
        model: 'claude-haiku',
        permissionMode: 'plan',
      },
    });
  });

  it('takes a file without frontmatter as instructions only', () => {
    expect(parsePersona('p', FILE, 'Just be careful.\n')).toMatchObject({
      instructions: 'Just be careful.',
      settings: { tools: undefined },
    });
  });

  it.each([
    [
      '---\ncolour: red\n---\nx',
      /AGENT_reader\.md \(frontmatter\) is invalid: \(top level\): unknown key "colour"/,
    ],
    ['---\nmax_turns: many\n---\nx', /max_turns: expected a number, got the text "many"/],
    ['---\npermission_mode: sudo\n---\nx', /permission_mode: /],
    ['---\ntools: [1\n---\nx', /AGENT_reader\.md: the frontmatter is not valid YAML/],
    ['---\ntools: [1, 2]\n---\nx', /tools/],
  ])('names the file and the key of bad frontmatter %#', (text, message) => {
    expect(() => parsePersona('reader', FILE, text)).toThrow(message);
  });
});

describe('persona settings', () => {
  const persona = parsePersona(
    'p',
    FILE,
    '---\ntools: Read\ndisallowed_tools: [Write]\nauto_approve_tools: [Read]\nmax_turns: 7\nmodel: persona-model\npermission_mode: plan\n---\n',
  );

  it('map to the claude flags', () => {
    const settings = resolveSettings(defaults, [persona.settings], (p) => p);
    const { args } = claudeArgv(invocationFor('claude', { settings }));
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    expect(after('--tools')).toBe('Read');
    expect(after('--disallowedTools')).toBe('Write');
    expect(after('--allowedTools')).toBe('Read');
    expect(after('--max-turns')).toBe('7');
    expect(after('--model')).toBe('persona-model');
    expect(after('--permission-mode')).toBe('plan');
  });

  it('lose to the item and beat the workspace defaults', () => {
    const settings = resolveSettings(
      { ...defaults, model: 'config-model' },
      [persona.settings, { maxTurns: 3 }],
      (p) => p,
    );
    expect(settings).toMatchObject({
      maxTurns: 3,
      model: 'persona-model',
      maxBudgetUsd: defaults.maxBudgetUsd,
    });
  });
});

describe('assemblePrompt', () => {
  const parts = {
    identity: 'IDENTITY',
    context: [
      { name: 'README.md', text: 'readme text' },
      { name: 'AGENTS.md', text: 'agents text' },
    ],
    persona: { id: 'reader', instructions: 'PERSONA' },
    bootstrap: 'BOOTSTRAP',
  };

  it('puts identity, project context, persona and bootstrap in that order', () => {
    const { text, cuts } = assemblePrompt(parts);
    const order = [
      'IDENTITY',
      '## README.md',
      '## AGENTS.md',
      '# Persona: reader',
      'PERSONA',
      'BOOTSTRAP',
    ].map((s) => text.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(cuts).toEqual([]);
  });

  it('cuts the persona first, then the project context, never identity or bootstrap', () => {
    const big = {
      ...parts,
      identity: 'I'.repeat(1000),
      bootstrap: 'B'.repeat(30_000),
      context: [{ name: 'README.md', text: 'R'.repeat(20_000) }],
      persona: { id: 'p', instructions: 'P'.repeat(20_000) },
    };
    const personaCut = assemblePrompt(big);
    expect(personaCut.cuts.map((c) => c.part)).toEqual(['persona']);
    expect(personaCut.text.length).toBeLessThanOrEqual(PROMPT_CAP_CHARS + 1);
    expect(personaCut.text).toContain('persona instructions cut by ralph');
    expect(personaCut.text).toContain('R'.repeat(20_000));

    const bothCut = assemblePrompt({ ...big, bootstrap: 'B'.repeat(55_000) });
    expect(bothCut.cuts.map((c) => c.part)).toEqual(['persona', 'context']);
    expect(bothCut.text).toContain('I'.repeat(1000));
    expect(bothCut.text).toContain('B'.repeat(55_000));
    expect(bothCut.text).toContain('project context cut by ralph');
    expect(bothCut.text.length).toBeLessThanOrEqual(PROMPT_CAP_CHARS + 1);
  });

  it('caps each project file at 4 KB, marked', () => {
    const capped = capContextFile('x'.repeat(10_000));
    expect(capped.length).toBe(4096);
    expect(capped).toContain('file cut by ralph');
  });
});

describe('FileCache', () => {
  it('re-reads a file whose mtime changed, and only then', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'AGENT_x.md');
    fs.writeFileSync(file, 'first');
    const cache = new FileCache();
    expect(await cache.read(file)).toBe('first');
    const before = fs.statSync(file).mtimeMs;
    expect(await cache.read(file)).toBe('first');
    fs.writeFileSync(file, 'second version');
    fs.utimesSync(file, new Date(), new Date(before + 5000));
    expect(await cache.read(file)).toBe('second version');
    fs.rmSync(file);
    expect(await cache.read(file)).toBeUndefined();
  });

  it('shows a persona edited on disk on the next load', async () => {
    const dir = await tempDir();
    const cache = new FileCache();
    fs.writeFileSync(path.join(dir, 'AGENT_coder.md'), '---\nmax_turns: 5\n---\nv1');
    expect((await loadPersona(dir, 'coder', cache)).settings.maxTurns).toBe(5);
    fs.writeFileSync(path.join(dir, 'AGENT_coder.md'), '---\nmax_turns: 9\n---\nversion two');
    fs.utimesSync(path.join(dir, 'AGENT_coder.md'), new Date(), new Date(Date.now() + 10_000));
    expect(await loadPersona(dir, 'coder', cache)).toMatchObject({
      instructions: 'version two',
      settings: { maxTurns: 9 },
    });
    await expect(loadPersona(dir, 'ghost', cache)).rejects.toThrow(
      /persona "ghost" not found: .*AGENT_ghost\.md does not exist/,
    );
  });
});
