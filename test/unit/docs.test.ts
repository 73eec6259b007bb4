// What the README and docs/ say holds: every reliability case mapped is a test's (the id starts
// or leads the test's title), every test file named exists, the figures are one bench run's.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Words as a reader sees them, whatever the line breaks.
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const DOCS = fs
  .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.md'))
  .map((file) => `docs/${file}`);
const ALL_PAGES = ['README.md', ...DOCS].map(read).join('\n');
const RELIABILITY = read('docs/reliability.md');

function testFiles(dir = path.join(ROOT, 'test')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(file);
    return entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

/** `T06–T08, T16` → T06, T07, T08, T16. */
function caseIds(text: string): string[] {
  return [...text.matchAll(/\bT(\d\d)(?:[–-]T(\d\d))?\b/g)].flatMap(([, from, to]) => {
    const first = Number(from);
    const last = to === undefined ? first : Number(to);
    return Array.from(
      { length: last - first + 1 },
      (_, i) => `T${String(first + i).padStart(2, '0')}`,
    );
  });
}

/** The case ids of the table of reliability cases (its first column). */
function mappedIds(): string[] {
  const table = RELIABILITY.slice(RELIABILITY.indexOf('| case '));
  const rows = table.split('\n').filter((line) => /^\| T\d\d/.test(line));
  return [...new Set(rows.flatMap((row) => caseIds(row.split('|')[1] ?? '')))];
}

/** The case ids each test title leads with (`it('T10–T14, T22 end in …')`). */
function titledIds(): Set<string> {
  const ids = new Set<string>();
  for (const file of testFiles()) {
    const text = fs.readFileSync(file, 'utf8');
    for (const [, title] of text.matchAll(/['`](T\d\d[^'`\n]*)['`]/g))
      for (const id of caseIds(/^[T\d–, -]+/.exec(title ?? '')?.[0] ?? '')) ids.add(id);
  }
  return ids;
}

describe('the docs on the tests', () => {
  it('maps only reliability cases that a test carries in its title', () => {
    const ids = mappedIds();
    expect(ids.length).toBeGreaterThan(30);
    const titled = titledIds();
    expect(ids.filter((id) => !titled.has(id))).toEqual([]);
  });

  it('names only test files that exist', () => {
    const names = [...ALL_PAGES.matchAll(/`([\w./-]+\.test\.ts)`/g)].map(([, name]) => name!);
    expect(names.length).toBeGreaterThan(10);
    const files = testFiles().map((file) => path.relative(ROOT, file));
    const missing = names.filter((name) =>
      name.includes('/') ? !files.includes(name) : !files.some((f) => path.basename(f) === name),
    );
    expect(missing).toEqual([]);
  });

  it("says which Node the tests need, as the pinned CLIs' engines say", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const claude = lock.packages['node_modules/@anthropic-ai/claude-code'];
    const ours = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(README).toContain(`Node.js ${ours.engines.node.replace('>=', '')} or later`);
    // A pinned CLI whose engines ask for more than ralph's: the README says it and why.
    if (claude?.engines?.node?.includes('22') === true) {
      expect(README).toContain('`EBADENGINE` for `@anthropic-ai/claude-code`');
      expect(README).toContain(`(${claude.version ?? '?'},`);
    }
  });

  it('reads ranges of case ids', () => {
    expect(caseIds('T06–T08, T16')).toEqual(['T06', 'T07', 'T08', 'T16']);
  });
});
