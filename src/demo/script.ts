// What `ralph demo` shows: a small project with a failing test, the night's five items, and
// what the demo agent does for each. The agent plays these scripts; it decides nothing.

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
export const PROJECT_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'tally', private: true, type: 'module' }, null, 2)}\n`,
  'README.md': '# tally\n\nA tiny library, worked on by ralph demo agent one night.\n',
  'src/add.js': '/** The sum of two numbers. */\nexport const add = (a, b) => a - b;\n',
  'tests/add.test.mjs': [
    "import assert from 'node:assert/strict';",
    "import { add } from '../src/add.js';",
    '',
    'assert.equal(add(2, 3), 5);',
    'assert.equal(add(-1, 1), 0);',
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
