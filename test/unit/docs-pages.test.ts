// The docs cannot drift from the code: the generated references are what the code makes now,
// every relative link and anchor resolves, every command, flag and configuration key a page
// names exists, and every subject the README had before has a home.
import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import type { Heading, Image, Link, Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString } from 'mdast-util-to-string';
import { describe, expect, it } from 'vitest';
import { programForDocs as program } from '../../src/docs/program.js';
import { commandPath, commandsOf, EXAMPLES } from '../../src/cli/examples.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { configJsonSchema } from '../../src/docs/config-reference.js';
import { ROOT, staleFiles } from '../../scripts/docs/pages.mjs';
import type { BenchResults } from '../../scripts/bench/tables.mjs';
import { jsonSchemaProblems } from '../support/config-json-schema.js';

const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];
const trees = new Map(
  PAGES.map((page) => [page, fromMarkdown(fs.readFileSync(path.join(ROOT, page), 'utf8'))]),
);

function nodesOf(tree: Nodes): Nodes[] {
  return 'children' in tree ? [tree, ...tree.children.flatMap((child) => nodesOf(child))] : [tree];
}

/** A page's anchors, as GitHub makes them from its headings. */
function anchorsOf(page: string): Set<string> {
  const slugger = new GithubSlugger();
  const headings = nodesOf(trees.get(page)!).filter((n): n is Heading => n.type === 'heading');
  return new Set(headings.map((h) => slugger.slug(toString(h))));
}

/** A word of a command line: a quoted string is one. */
const TOKEN = /"[^"]*"|'[^']*'|\S+/g;

/**
 * Each use of ralph in the pages' code, as [page, command]: an inline code that is one, or a
 * line of a code block from `ralph` (after a prompt or another command) to a shell operator.
 */
function commandLines(): [string, string][] {
  return codeOf().flatMap(([page, line]) =>
    line
      .replace(/#.*$/, '')
      .split(/&&|\|\||;|\|/)
      .map((part) => part.trim().replace(/^\$ /, ''))
      .filter((part) => part.startsWith('ralph ') || part === 'ralph')
      .map((part) => [page, part] as [string, string]),
  );
}

/** Inline code and code blocks of every page, as [page, text]. */
function codeOf(): [string, string][] {
  return [...trees].flatMap(([page, tree]) =>
    nodesOf(tree)
      .filter((n) => n.type === 'inlineCode' || n.type === 'code')
      .flatMap((n) => ('value' in n ? n.value.split('\n').map((line) => [page, line]) : [])),
  ) as [string, string][];
}

describe('the generated references', () => {
  it('are what the code makes now (npm run docs writes them)', async () => {
    expect(await staleFiles()).toEqual([]);
  }, 60_000);

  it('are drawn from one full bench run with every bench', () => {
    const results = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'docs', 'bench.json'), 'utf8'),
    ) as BenchResults;
    expect(results.quick).toBe(false);
    expect(results.only).toBeUndefined();
    const source = fs.readFileSync(path.join(ROOT, 'scripts', 'bench.mjs'), 'utf8');
    const declared = [...source.matchAll(/^ {2}\['([a-z-]+)', \(\) =>/gm)].map((m) => m[1]);
    expect(declared.length).toBeGreaterThan(10);
    expect([...new Set(results.rows.map((r) => r.bench))].sort()).toEqual(declared.sort());
  });

  it("give every command's help an example, and name every CLI in the program's", () => {
    const root = program();
    const paths = [root, ...commandsOf(root)].map(commandPath);
    expect(paths.filter((p) => EXAMPLES[p] === undefined)).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((p) => !paths.includes(p))).toEqual([]);
    for (const cli of ['claude', 'codex', 'gemini', 'opencode', 'pi'])
      expect(root.description()).toContain(cli);
  });

  it('a JSON Schema that accepts what ralph reads and refuses an unknown key, as ralph does', () => {
    const shipped = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'schema', 'ralph.config.schema.json'), 'utf8'),
    ) as unknown;
    expect(shipped).toEqual(configJsonSchema());
    const everyDefault = ConfigSchema.parse({});
    expect(jsonSchemaProblems(everyDefault)).toEqual([]);
    for (const unknown of [
      { colour: 1 },
      { run: { colour: 1 } },
      { forge: { kind: 'github', x: 1 } },
    ]) {
      expect(ConfigSchema.safeParse(unknown).success).toBe(false);
      expect(jsonSchemaProblems(unknown)).not.toEqual([]);
    }
  });
});

describe('the pages', () => {
  it('link only to files, images and anchors that exist', () => {
    const broken: string[] = [];
    for (const [page, tree] of trees)
      for (const link of nodesOf(tree).filter(
        (n): n is Link | Image => n.type === 'link' || n.type === 'image',
      )) {
        if (/^[a-z]+:/i.test(link.url)) continue;
        const [file = '', anchor] = link.url.split('#');
        const target = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
        if (!fs.existsSync(path.join(ROOT, target))) broken.push(`${page}: ${link.url}`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor))
          broken.push(`${page}: ${link.url} (no such heading)`);
      }
    expect(broken).toEqual([]);
  });

  it('name only commands and flags that exist', () => {
    const root = program();
    const byPath = new Map(
      commandsOf(root).flatMap((c) => [
        [commandPath(c), c] as const,
        ...c.aliases().map((a) => [commandPath(c).replace(/[^ ]+$/, a), c] as const),
      ]),
    );
    const wrong: string[] = [];
    for (const [page, use] of commandLines()) {
      const words = [...use.matchAll(TOKEN)].map((m) => m[0]).slice(1);
      const at = words[0] === '-C' ? 2 : 0;
      const [first = '', second = ''] = words.slice(at);
      // A placeholder (`ralph <command>`), a message (`ralph status: …`) or help names no command.
      if (!/^[a-z][\w-]*$/.test(first) || first === 'help') continue;
      const name = byPath.has(`${first} ${second}`) ? `${first} ${second}` : first;
      const command = byPath.get(name);
      if (command === undefined) {
        wrong.push(`${page}: ${use} (no command "${name}")`);
        continue;
      }
      const flags = new Set(
        [...command.options, ...root.options, command.createHelp().visibleOptions(command)]
          .flat()
          .flatMap((o) => [o.long, o.short]),
      );
      for (const flag of words.filter((w) => /^--?[a-zA-Z]/.test(w)))
        if (!flags.has(flag.replace(/=.*/, ''))) wrong.push(`${page}: ${use} (no flag ${flag})`);
    }
    expect(wrong).toEqual([]);
  });

  it('name only configuration keys that exist', () => {
    const reference = fs.readFileSync(path.join(ROOT, 'docs/reference/configuration.md'), 'utf8');
    const keys = new Set([...reference.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));
    const sections = new Set([...keys].filter((k) => !k.includes('.')));
    const wrong = codeOf()
      .filter(([, text]) => /^[a-z][A-Za-z]*(\.[A-Za-z]+)+$/.test(text))
      .filter(([, text]) => sections.has(text.split('.')[0]!) && !keys.has(text))
      .map(([page, text]) => `${page}: ${text}`);
    expect(wrong).toEqual([]);
  });

  it('give every subject of the README before it was split a home', () => {
    const headings = new Set(
      [...trees.values()].flatMap((tree) =>
        nodesOf(tree)
          .filter((n): n is Heading => n.type === 'heading')
          .map((h) => toString(h)),
      ),
    );
    const missing = README_HEADINGS_BEFORE.map((h) => RENAMED[h] ?? h.replace(/`/g, '')).filter(
      (h) => !headings.has(h),
    );
    expect(missing).toEqual([]);
  });
});

/** Subjects whose page heading says it in other words. */
const RENAMED: Record<string, string> = { Commands: 'Commands in practice' };

/** The headings of the README of 2,088 lines, before its subjects moved to docs/. */
const README_HEADINGS_BEFORE = [
  'ralph',
  'See a night first: `ralph demo`',
  'Setup',
  'Quick start',
  'Workspace',
  'Commands',
  '`ralph demo [dir] [--no-serve] [--pace <ms>]`',
  '`ralph init [dir]`',
  '`ralph add <title...>`',
  '`ralph edit <id> [flags]`',
  '`ralph status [--json] [--watch]`',
  '`ralph pause [reason...] [--after-current]` and `ralph resume [ids...]`',
  '`ralph sessions [--item ID] [--status S] [--since T] [--json]`',
  '`ralph logs <session|item> [--follow] [--raw] [--json]`',
  '`ralph show <session|item> [--json]`',
  '`ralph report [--since T] [--json]`',
  "`ralph import <source> [--dry-run] [--chain] [--label L] [--milestone M] [--assignee A] [add's flags]`",
  '`ralph notify test`',
  '`ralph retry`, `ralph cancel`, `ralph rm`',
  '`ralph stop <id> [--requeue | --cancel]`',
  '`ralph say <id> <text...>`',
  '`ralph land [ids...] [--dry-run]`',
  '`ralph diff <item> [--stat]`',
  '`ralph watch [--detach]`',
  '`ralph doctor`',
  '`ralph replay <session|item> [--exec]`',
  '`ralph agents` and `ralph agents show <id>`',
  '`ralph serve [--host 127.0.0.1] [--port 7420] [--read-only] [--public-origin URL]`',
  '`ralph queue` (alias `ralph ls`), `ralph queue import <file>`, `ralph queue export [file]`',
  '`ralph db migrate`',
  '`ralph run`',
  'How a session ends',
  'Agent CLIs: claude, codex, gemini, opencode and pi',
  'Work from plans and issues: `ralph import`',
  'Notifications',
  'Fallback when a usage limit holds a CLI, and the reserve',
  'Git mode, gates and workers',
  "Landing: the night's branches on one green branch",
  'Pull requests: CI in the loop',
  'The sandbox: bubblewrap, and egress to allowed hosts',
  'A fleet: one Postgres queue for many machines',
  'Configuration',
  'The bootstrap template',
  'Personas',
  'Secrets',
  'Exit codes',
  'Performance',
  'What a session spends before it works: `lean`',
  'Reliability',
  'Architecture',
  'Development',
];
