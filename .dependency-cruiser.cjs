// The dependencies of src/, checked by `npm run lint` (depcruise src): static imports,
// `import()` expressions and type-only imports alike.

const fs = require('node:fs');
const path = require('node:path');

/** The folders the runner composes, below it and above lib and config. */
const FEATURES = [
  'events',
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
  'land',
  'forge',
  'sandbox',
  'sources',
  'review',
  'push',
  'environment',
  'notify',
  'stage',
  'session',
  'decide',
  'candidates',
  'forecast',
  'lessons',
  'linear',
];

/**
 * The folders of src/ and the folders each may import from. Dependencies point one way:
 * commands → runner → the feature folders → lib; a feature folder knows no other one except
 * those named here (the stream parser knows no process, the queue store no loop).
 */
const MAY_IMPORT = {
  lib: [],
  config: ['lib'],
  stream: ['lib'],
  // What a run says as it goes (typed events) and what it did: every room above may tell them.
  events: ['lib', 'stream'],
  template: ['lib'],
  queue: ['lib', 'config'],
  // The night plan: likely cost, time and success from the archive's history, the usage
  // windows' room, and the order that fits the most work in before a window runs out; made
  // from the queue and each item's settings as its session would resolve them.
  forecast: ['lib', 'config', 'queue', 'archive', 'session', 'events'],
  persona: ['lib', 'config'],
  prompt: ['lib', 'config', 'queue'],
  archive: ['lib', 'stream'],
  // The agent CLIs, the choice among them (fallback, holds) and the handover between them.
  agent: ['lib', 'config', 'stream', 'archive', 'control', 'git'],
  control: ['lib', 'config', 'archive'],
  git: ['lib'],
  gates: ['lib', 'config'],
  // The lander, a stage: the git of a merge queue, given the item and its resolved settings.
  land: [
    'lib',
    'config',
    'git',
    'gates',
    'queue',
    'agent',
    'archive',
    'events',
    'sandbox',
    'stage',
    'environment',
  ],
  // The forge (GitHub) and the pull-request stage: pull requests, checks, comments, merges, and
  // what a pull request says of its item.
  forge: ['lib', 'config', 'git', 'queue', 'archive', 'events', 'stage'],
  // The sandbox (bubblewrap and its egress proxy): a command in, a command out.
  sandbox: ['lib', 'config', 'agent', 'gates', 'git'],
  // The push stage: a successful session's branch pushed to `git.push`'s remote.
  push: ['lib', 'git', 'queue', 'stage'],
  // Sources of work (a markdown plan, a prd.json, a forge's issues): entries of the queue's shape,
  // and the write-back stage that tells an imported issue its item's end (through forge's issues port).
  sources: ['lib', 'queue', 'forge', 'stage'],
  // The review stage: a reviewer of another CLI reads the branch and answers a verdict, which
  // moves the item (approved on, changes back to its author, a failing reviewer never approves).
  review: ['lib', 'config', 'git', 'queue', 'events', 'stage', 'agent', 'archive', 'prompt'],
  // The setup stage: a worktree made ready before its session (files copied in, setup and
  // maintenance commands run with the network and secrets the agent does not get).
  environment: [
    'lib',
    'config',
    'git',
    'gates',
    'queue',
    'events',
    'stage',
    'agent',
    'archive',
    'sandbox',
  ],
  // Notifications: an outbox under state/ and the channels it is delivered through.
  notify: ['lib', 'config', 'events'],
  // The decision stage: a person's accept or reject carried out on the world with the land and
  // forge rooms' means (a branch kept under an archive ref, a revert gated like a landing, a
  // pull request merged or closed).
  decide: ['lib', 'config', 'git', 'queue', 'events', 'stage', 'land', 'forge'],
  // The candidates stage: several CLIs try an item, each a full attempt, and the gates and an
  // anonymized judge (a session it asks for) pick the change that goes on.
  candidates: ['lib', 'config', 'git', 'queue', 'events', 'stage', 'agent', 'archive'],
  // Lessons: what a person's decisions (and the night's repeated failures) teach, proposed as
  // rules by a session it asks for; a rule a person accepted is given to every later session
  // (through its ports: the rules in force and the store of their checks).
  lessons: ['lib', 'config', 'git', 'queue', 'events', 'stage', 'prompt'],
  // Linear, a source both ways: its issues as entries of the queue's shape (through the sources'
  // entry and task-list ports), and the stage that moves each issue as its item is worked.
  linear: ['lib', 'config', 'queue', 'events', 'stage', 'sources'],
  // The one interface of the stages beside the workers, and what a stage is given of the run.
  // A stage room (land, forge) imports it and never the runner nor another stage room.
  stage: ['lib', 'config', 'queue', 'events', 'agent', 'sandbox', 'notify'],
  // The session host: any agent session (an author's, or one a stage asks for through the
  // stage's port of sessions) prepared, spawned, supervised, classified and archived; its work
  // checked after.
  session: [
    'stage',
    'lib',
    'config',
    'events',
    'stream',
    'agent',
    'archive',
    'control',
    'gates',
    'git',
    'persona',
    'prompt',
    'queue',
    'sandbox',
    'template',
    'land',
  ],
  runner: ['lib', 'config', ...FEATURES],
  // What people read and do in a workspace, from the command line or over HTTP.
  workspace: ['lib', 'config', ...FEATURES],
  server: ['lib', 'config', ...FEATURES, 'runner', 'workspace'],
  // `ralph demo`: its project, its items and its agent (a script of its own, run by ralph).
  demo: ['lib'],
  cli: ['lib', 'config', ...FEATURES, 'runner', 'workspace', 'server', 'demo'],
  // The references generated from the code (`npm run docs`): commands, configuration, API.
  docs: ['lib', 'config', 'queue', 'server', 'cli'],
};

const folders = Object.keys(MAY_IMPORT);

/**
 * A room's module another room may use beside its settings schema: a session reads the
 * repository's own environment and whether its worktree's lockfiles still match the tree it
 * holds; and each stage room resolves its own settings of an item (its `settings.ts`), which
 * the session host composes into the item's work (with the candidates that would try it, should
 * its own work fail: `candidates/roster.ts`).
 */
const PORTS_INTO_ROOMS = {
  session: [
    '^src/environment/(tree-keys|repository|settings)[.]ts$',
    '^src/(forge|review|candidates)/settings[.]ts$',
    '^src/candidates/roster[.]ts$',
    '^src/lessons/(rules|store|state)[.]ts$',
  ],
  // The rules a person accepted, checked by the reviewer and the judge, and what they found.
  review: ['^src/lessons/(rules|store|state)[.]ts$'],
  candidates: ['^src/lessons/(rules|store|state)[.]ts$'],
};

/**
 * An item's statuses and what each says (src/queue/item-status.ts): the words every room speaks
 * of an item, so any room may read them; the module imports nothing.
 */
const ITEM_STATUSES = '^src/queue/item-status[.]ts$';

/** Each room's settings schema, composed into ralph.config.json's by src/config/schema.ts. */
const ROOM_SETTINGS = '^src/[a-z]+/config-schema[.]ts$';

/**
 * The stages beside the workers, read from the one list of them (src/cli/stages.ts): each
 * import there names a stage's room and its module. A new stage is one line there; these rules
 * follow.
 */
const STAGE_IMPORTS = [
  ...fs
    .readFileSync(path.join(__dirname, 'src/cli/stages.ts'), 'utf8')
    .matchAll(/from '\.\.\/([a-z]+)\/([a-z-]+)\.js'/g),
].filter(([, room]) => room !== 'stage');
const STAGE_ROOMS = [...new Set(STAGE_IMPORTS.map(([, room]) => room))];
/**
 * What one stage room may use of another's: sources use the forge's issues port; the lander
 * makes its worktree ready for its land gates as the setup stage makes an item's.
 */
const PORTS_BETWEEN_ROOMS = {
  sources: ['^src/forge/(forge|open)[.]ts$'],
  linear: ['^src/sources/(entry|task-list|issue-text)[.]ts$'],
  land: ['^src/environment/(make-ready|repository|config-schema)[.]ts$'],
  // A person's decision carried out with the lander's means (a gated revert in a kept worktree)
  // and the forge's (a pull request merged or closed).
  decide: ['^src/land/(job|revert)[.]ts$', '^src/forge/(forge|open)[.]ts$'],
  // The rules a person accepted, checked by the reviewer and the judge, and what they found.
  review: ['^src/lessons/(rules|store|state)[.]ts$'],
  candidates: ['^src/lessons/(rules|store|state)[.]ts$'],
};
/** The modules that declare a stage (a `StageFactory`): only src/cli/stages.ts names them. */
const STAGE_MODULES = `^src/(${STAGE_IMPORTS.map(([, room, module]) => `${room}/${module}`).join('|')})[.]ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a cycle makes the modules in it one module: break it (move the shared type down)',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'runner-names-no-stage',
      severity: 'error',
      comment: 'the runner runs the stages it is given (src/cli/stages.ts) and names none of them',
      from: { path: '^src/runner/' },
      to: { path: STAGE_MODULES },
    },
    ...STAGE_ROOMS.map((room) => ({
      name: 'stage-rooms-apart',
      severity: 'error',
      comment: `src/${room} (a stage room) imports neither the runner nor another stage room`,
      from: { path: `^src/${room}/` },
      to: {
        path: `^src/(runner|${STAGE_ROOMS.filter((r) => r !== room).join('|')})/`,
        pathNot: [ROOM_SETTINGS, ...(PORTS_BETWEEN_ROOMS[room] ?? [])],
      },
    })),
    ...Object.entries(MAY_IMPORT).map(([folder, allowed]) => ({
      name: `boundary-${folder}`,
      severity: 'error',
      comment: `src/${folder} may import only from ${allowed.join(', ') || 'itself'} (.dependency-cruiser.cjs, MAY_IMPORT)`,
      from: { path: `^src/${folder}/` },
      to: {
        path: `^src/(${folders.filter((f) => f !== folder && !allowed.includes(f)).join('|')})/`,
        // The schema of a room's settings is public: config/ composes them, others read types.
        pathNot: [ROOM_SETTINGS, ITEM_STATUSES, ...(PORTS_INTO_ROOMS[folder] ?? [])],
      },
    })),
    {
      name: 'item-statuses-are-a-leaf',
      severity: 'error',
      comment: 'src/queue/item-status.ts imports nothing: every room may read it',
      from: { path: ITEM_STATUSES },
      to: { path: '^src/' },
    },
    {
      name: 'room-settings-are-leaves',
      severity: 'error',
      comment:
        "a room's settings schema (config-schema.ts) imports only lib, config's value kinds and other rooms' settings schemas, so config/ can compose them",
      from: { path: ROOM_SETTINGS },
      to: {
        path: '^src/',
        pathNot: [
          '^src/lib/',
          '^src/config/(values|cli-names|sandbox-kinds|notify-events|candidate-whens)[.]ts$',
          ROOM_SETTINGS,
        ],
      },
    },
    {
      name: 'runner-surface',
      severity: 'error',
      comment:
        'commands use the runner through its public surface: src/runner/index.ts (what they read of its state is in src/control and src/workspace)',
      from: { path: '^src/(cli|server)/' },
      to: { path: '^src/runner/', pathNot: '^src/runner/index[.]ts$' },
    },
    {
      name: 'no-entry-point',
      severity: 'error',
      comment: 'nothing under src/ imports the entry point',
      from: { path: '^src/' },
      to: { path: '^src/bin[.]ts$' },
    },
    {
      name: 'folders-known',
      severity: 'error',
      comment: 'every folder of src/ has its place in MAY_IMPORT',
      from: { path: `^src/(?!(${folders.join('|')})/|bin[.]ts$)` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
