// What `ralph demo` shows: a small project with a failing test, the night's six items, and
// what the demo agent does for each, and as the reviewer of one. The agent plays these
// scripts; it decides nothing but what a script reads in a file.

/** The demo agent's model name: every session of the demo says it was the demo agent's. */
export const DEMO_MODEL = 'ralph-demo-agent';

/** One thing the demo agent does: says something, or uses a tool (for real). */
export type Step =
  | { kind: 'say'; text: string }
  | { kind: 'read'; file: string }
  | { kind: 'write'; file: string; content: string }
  | { kind: 'run'; command: string[]; why: string }
  | { kind: 'commit'; message: string };

/** The project the night works on: a tiny library whose test fails. */
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The demo project: a tiny library whose test fails, and one dependency its test needs (a
 * package of the project's own, so the night stays offline), which a fresh worktree lacks until
 * it gets its copy of the tree the demo's `npm ci` built once.
 */
export const PROJECT_FILES: Record<string, string> = {
  'package.json': json({
    name: 'tally',
    private: true,
    type: 'module',
    devDependencies: { check: 'file:packages/check' },
  }),
  'package-lock.json': json({
    name: 'tally',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'tally', devDependencies: { check: 'file:packages/check' } },
      'node_modules/check': { resolved: 'packages/check', link: true },
      'packages/check': { version: '1.0.0', dev: true },
    },
  }),
  '.gitignore': 'node_modules/\n',
  'packages/check/package.json': json({
    name: 'check',
    version: '1.0.0',
    type: 'module',
    main: 'index.js',
  }),
  'packages/check/index.js': [
    "import assert from 'node:assert/strict';",
    '',
    '/** Asserts `actual` equals `expected`, saying what was compared. */',
    'export const equal = (actual, expected, what) => assert.equal(actual, expected, what);',
    '',
  ].join('\n'),
  'README.md': '# tally\n\nA tiny library, worked on by ralph demo agent one night.\n',
  'src/add.js': '/** The sum of two numbers. */\nexport const add = (a, b) => a - b;\n',
  'tests/add.test.mjs': [
    "import { equal } from 'check';",
    "import { add } from '../src/add.js';",
    '',
    "equal(add(2, 3), 5, 'add(2, 3)');",
    "equal(add(-1, 1), 0, 'add(-1, 1)');",
    "console.log('add: ok');",
    '',
  ].join('\n'),
};

/** One item of the demo's night, as `ralph add` would take it. */
export interface DemoItem {
  id: string;
  title: string;
  body: string;
  gates: string[][];
  dependsOn?: string[];
  allowedTools?: string[];
  /** Its acceptance criteria, and whether a reviewer approves its work before it lands. */
  criteria?: string[];
  review?: boolean;
}

export const DEMO_ITEMS: DemoItem[] = [
  {
    id: 'fix-add',
    title: 'Fix add(): its test says 2 + 3 is not 5',
    body: '`node tests/add.test.mjs` fails. Make add() right; the test is the gate.',
    gates: [['node', 'tests/add.test.mjs']],
  },
  {
    id: 'subtract',
    title: 'Add subtract(), with its test',
    body: 'Add `src/subtract.js` exporting subtract(a, b), and `tests/subtract.test.mjs`.',
    gates: [['node', 'tests/subtract.test.mjs']],
  },
  {
    id: 'readme',
    title: 'Document the library in README.md',
    body: 'Say what tally offers and how to use it.',
    gates: [],
  },
  {
    id: 'cli',
    title: 'Add a command line: node src/cli.js 2 3 prints 5',
    body: 'Add `src/cli.js` and its test `tests/cli.test.mjs`. It builds on the fixed add().',
    gates: [['node', 'tests/cli.test.mjs']],
    dependsOn: ['fix-add'],
  },
  {
    id: 'multiply',
    title: 'Add multiply(), with its test',
    body: 'Add `src/multiply.js` exporting multiply(a, b), and `tests/multiply.test.mjs`. A reviewer reads it before it lands.',
    gates: [['node', 'tests/multiply.test.mjs']],
    criteria: [
      'src/multiply.js exports multiply(a, b), the product of a and b',
      'tests/multiply.test.mjs checks a negative number too',
    ],
    review: true,
  },
  {
    id: 'changelog',
    title: 'Write CHANGELOG.md for the first release',
    body: 'This item may only read (its allowlist): the agent is refused the file it writes, and the night asks you.',
    gates: [],
    allowedTools: ['Read', 'Bash'],
  },
];

const SUBTRACT_TEST = [
  "import assert from 'node:assert/strict';",
  "import { subtract } from '../src/subtract.js';",
  '',
  'assert.equal(subtract(5, 3), 2);',
  "console.log('subtract: ok');",
  '',
].join('\n');

/** multiply's test: the first attempt's checks no negative number, the reviewer sends it back. */
const multiplyTest = (negative: boolean) =>
  [
    "import assert from 'node:assert/strict';",
    "import { multiply } from '../src/multiply.js';",
    '',
    'assert.equal(multiply(2, 3), 6);',
    ...(negative ? ['assert.equal(multiply(-2, 3), -6);'] : []),
    "console.log('multiply: ok');",
    '',
  ].join('\n');

const CLI = [
  "import { add } from './add.js';",
  '',
  'const [a, b] = process.argv.slice(2).map(Number);',
  'if (process.argv.length !== 4 || Number.isNaN(a) || Number.isNaN(b)) {',
  "  console.error('usage: node src/cli.js <a> <b>');",
  '  process.exit(2);',
  '}',
  'console.log(add(a, b));',
  '',
].join('\n');

const CLI_TEST = [
  "import assert from 'node:assert/strict';",
  "import { execFileSync } from 'node:child_process';",
  '',
  "assert.equal(execFileSync('node', ['src/cli.js', '2', '3'], { encoding: 'utf8' }), '5\\n');",
  "console.log('cli: ok');",
  '',
].join('\n');

const README = [
  '# tally',
  '',
  'A tiny library of arithmetic, worked on by ralph demo agent one night.',
  '',
  '```js',
  "import { add } from './src/add.js';",
  "import { subtract } from './src/subtract.js';",
  '',
  'add(2, 3); // 5',
  'subtract(5, 3); // 2',
  '```',
  '',
  'From a shell: `node src/cli.js 2 3` prints 5.',
  '',
].join('\n');

const say = (text: string): Step => ({ kind: 'say', text });

/** What the demo agent does for an item, in a new session or in one resumed (after a failure). */
export function scriptOf(itemId: string, resumed: boolean): Step[] {
  switch (itemId) {
    case 'fix-add':
      // Wrong first, so that the night shows a failed gate handed back and fixed.
      return resumed
        ? [
            say(
              "The gate failed: add(2, 3) gave '23'. The numbers were joined as text; adding them.",
            ),
            {
              kind: 'write',
              file: 'src/add.js',
              content: '/** The sum of two numbers. */\nexport const add = (a, b) => a + b;\n',
            },
            { kind: 'run', command: ['node', 'tests/add.test.mjs'], why: 'run the test' },
            { kind: 'commit', message: 'add: add the numbers, not their text' },
            say('add() adds, and its test passes.'),
          ]
        : [
            say('The test expects add(2, 3) to be 5. Reading the code.'),
            { kind: 'read', file: 'src/add.js' },
            say('add() subtracts; it should put its arguments together.'),
            {
              kind: 'write',
              file: 'src/add.js',
              content: '/** The sum of two numbers. */\nexport const add = (a, b) => `${a}${b}`;\n',
            },
            { kind: 'commit', message: 'add: put the arguments together' },
            say('Fixed add().'),
          ];
    case 'subtract':
      return [
        say('Adding subtract() and a test for it.'),
        {
          kind: 'write',
          file: 'src/subtract.js',
          content: '/** a minus b. */\nexport const subtract = (a, b) => a - b;\n',
        },
        { kind: 'write', file: 'tests/subtract.test.mjs', content: SUBTRACT_TEST },
        { kind: 'run', command: ['node', 'tests/subtract.test.mjs'], why: 'run the new test' },
        { kind: 'commit', message: 'subtract, with its test' },
        say('subtract() is in, with its test.'),
      ];
    case 'readme':
      return [
        say('Reading what the library has.'),
        { kind: 'read', file: 'src/add.js' },
        { kind: 'write', file: 'README.md', content: README },
        { kind: 'commit', message: 'README: what tally offers and how to use it' },
        say('The README says what tally offers and how to use it.'),
      ];
    case 'cli':
      return [
        say('Adding the command line on top of the fixed add().'),
        { kind: 'read', file: 'src/add.js' },
        { kind: 'write', file: 'src/cli.js', content: CLI },
        { kind: 'write', file: 'tests/cli.test.mjs', content: CLI_TEST },
        { kind: 'run', command: ['node', 'tests/cli.test.mjs'], why: 'run its test' },
        { kind: 'commit', message: 'cli: node src/cli.js 2 3 prints 5' },
        say('node src/cli.js 2 3 prints 5.'),
      ];
    case 'multiply':
      return resumed
        ? [
            say('The reviewer says the test checks no negative number; adding one.'),
            { kind: 'write', file: 'tests/multiply.test.mjs', content: multiplyTest(true) },
            { kind: 'run', command: ['node', 'tests/multiply.test.mjs'], why: 'run the test' },
            { kind: 'commit', message: 'multiply: test a negative number too' },
            say('The test checks a negative number now.'),
          ]
        : [
            say('Adding multiply() and a test for it.'),
            {
              kind: 'write',
              file: 'src/multiply.js',
              content: '/** The product of a and b. */\nexport const multiply = (a, b) => a * b;\n',
            },
            { kind: 'write', file: 'tests/multiply.test.mjs', content: multiplyTest(false) },
            { kind: 'run', command: ['node', 'tests/multiply.test.mjs'], why: 'run the new test' },
            { kind: 'commit', message: 'multiply, with its test' },
            say('multiply() is in, with its test.'),
          ];
    case 'changelog':
      return [
        say('Reading the history to write the changelog.'),
        { kind: 'run', command: ['git', 'log', '--oneline', '-n', '5'], why: 'read the history' },
        {
          kind: 'write',
          file: 'CHANGELOG.md',
          content: '# Changelog\n\n## 0.1.0\n\n- add, subtract\n',
        },
        say('I was not allowed to write CHANGELOG.md, so the changelog is not written.'),
      ];
    default:
      return [say(`The demo agent knows only the demo's items; ${itemId} is not one of them.`)];
  }
}

/** The file the demo's reviewer reads of an item, and what it judges from it. */
const REVIEWED: Record<string, { file: string; verdict: (text: string) => DemoVerdict }> = {
  multiply: {
    file: 'tests/multiply.test.mjs',
    verdict: (text) =>
      /multiply\(-/.test(text)
        ? {
            criteria: [
              { id: 1, verdict: 'PASS', evidence: 'src/multiply.js:2 returns a * b' },
              {
                id: 2,
                verdict: 'PASS',
                evidence: 'tests/multiply.test.mjs:5 checks multiply(-2, 3)',
              },
            ],
            findings: [],
            overall: 'approve',
            summary: 'multiply() is right and its test covers a negative number.',
          }
        : {
            criteria: [
              { id: 1, verdict: 'PASS', evidence: 'src/multiply.js:2 returns a * b' },
              {
                id: 2,
                verdict: 'FAIL',
                evidence: 'tests/multiply.test.mjs checks multiply(2, 3) alone',
              },
            ],
            findings: [
              {
                severity: 'major',
                place: 'tests/multiply.test.mjs:4',
                finding: 'no negative number is checked',
              },
            ],
            overall: 'request_changes',
            summary: 'The test checks no negative number.',
          },
  },
};

/** A verdict as the demo's reviewer gives it. */
interface DemoVerdict {
  criteria: { id: number; verdict: 'PASS' | 'FAIL'; evidence: string }[];
  findings: { severity: string; place: string; finding: string }[];
  overall: 'approve' | 'request_changes';
  summary: string;
}

/**
 * What the demo agent does as an item's reviewer: it reads the file the item is judged by and
 * answers a verdict from what it finds there (`read`: the file's text, if it is there).
 */
export function reviewScriptOf(itemId: string, read: (file: string) => string | undefined): Step[] {
  const reviewed = REVIEWED[itemId];
  const verdict: DemoVerdict =
    reviewed === undefined
      ? { criteria: [], findings: [], overall: 'approve', summary: 'Nothing to judge it by.' }
      : reviewed.verdict(read(reviewed.file) ?? '');
  return [
    ...(reviewed === undefined ? [] : [{ kind: 'read', file: reviewed.file } as const]),
    say(`${verdict.summary}\n\n\`\`\`json\n${JSON.stringify(verdict, null, 2)}\n\`\`\``),
  ];
}
