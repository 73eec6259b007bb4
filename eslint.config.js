import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The folders of src/ and the folders each may import from. Dependencies point one way:
 * commands → runner → the feature folders → lib; a feature folder knows no other one except
 * those named here (the stream parser knows no process, the queue store no loop).
 */
/** The folders the runner composes, below it and above lib and config. */
const FEATURES = [
  'stream',
  'template',
  'queue',
  'persona',
  'prompt',
  'archive',
  'agent',
  'control',
  'git',
  'gates',
];

const MAY_IMPORT = {
  lib: [],
  config: ['lib'],
  stream: ['lib'],
  template: ['lib'],
  queue: ['lib', 'config'],
  persona: ['lib', 'config'],
  prompt: ['lib', 'config'],
  archive: ['lib', 'stream'],
  agent: ['lib', 'config', 'stream'],
  control: ['lib', 'config', 'archive'],
  git: ['lib'],
  gates: ['lib', 'config'],
  runner: ['lib', 'config', ...FEATURES],
  // What people read and do in a workspace, from the command line or over HTTP.
  workspace: ['lib', 'config', ...FEATURES],
  server: ['lib', 'config', ...FEATURES, 'runner', 'workspace'],
  cli: ['lib', 'config', ...FEATURES, 'runner', 'workspace', 'server'],
};

const boundaries = Object.entries(MAY_IMPORT).map(([folder, allowed]) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: [
              ...Object.keys(MAY_IMPORT)
                .filter((other) => other !== folder && !allowed.includes(other))
                .flatMap((other) => [`../${other}/*`, `../../${other}/*`]),
              // Nothing under src/ imports the entry point.
              '../bin.js',
            ],
            message: `src/${folder} may import only from ${allowed.join(', ') || 'itself'} (eslint.config.js, MAY_IMPORT)`,
          },
          ...(folder === 'cli' || folder === 'server'
            ? [
                {
                  group: [
                    '../runner/*',
                    '!../runner/index.js',
                    '!../runner/state.js',
                    '../../runner/*',
                    '!../../runner/index.js',
                    '!../../runner/state.js',
                  ],
                  message:
                    'commands use the runner through its public surface: src/runner/index.ts, and state.ts to read its state',
                },
              ]
            : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  ...boundaries,
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'console',
          'process',
          'Buffer',
          'URL',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
