import { DEFAULT_ALLOWED_TOOLS } from './default-tools.js';
import * as z from '../lib/zod.js';
import { CLI_NAMES } from './cli-names.js';
import { PERMISSION_MODES } from './permission-modes.js';
import { LimitSchema, ToolListSchema, VAR_NAME } from './values.js';
import {
  ClisSchema,
  cliOfFallback,
  DEFAULT_INITIAL_PROMPT,
  FallbackChoiceSchema,
  InitialPromptSchema,
  OldClaudeSchema,
  PriceSchema,
} from '../agent/config-schema.js';
import { RunSchema } from '../control/config-schema.js';
import { EnvironmentSchema } from '../environment/config-schema.js';
import { ForgeSchema } from '../forge/config-schema.js';
import { GateSchema } from '../gates/config-schema.js';
import { GitSchema } from '../git/config-schema.js';
import { LandChoiceSchema, LandSchema } from '../land/config-schema.js';
import { NotifierSchema } from '../notify/config-schema.js';
import { QueueSchema } from '../queue/config-schema.js';
import { ReviewSchema } from '../review/config-schema.js';
import { LessonsSchema } from '../lessons/config-schema.js';
import { LinearSchema } from '../linear/config-schema.js';
import { CandidateChoiceSchema, CandidatesSchema } from '../candidates/config-schema.js';
import { SandboxChoiceSchema, SandboxSchema } from '../sandbox/config-schema.js';
import { ImportSchema } from '../sources/config-schema.js';

// `ralph.config.json`, composed of the settings each room owns (its `config-schema.ts`).

/** Git mode as an item or a persona may set it: on or off, and the ref its branch starts from. */
const GitChoiceShape = {
  git: z
    .boolean()
    .describe('Git mode for this item: a branch and a worktree of its own.')
    .optional(),
  base: z.string().min(1).describe('The ref its branch starts from.').optional(),
  gates: z
    .array(GateSchema)
    .describe("Its quality gates; they replace the workspace's.")
    .optional(),
  land: LandChoiceSchema.describe("Its landing; each key overrides the workspace's.").optional(),
  forge: z
    .boolean()
    .describe('`false`: no pull request for the item even though the workspace sets `forge`.')
    .optional(),
  sandbox: SandboxChoiceSchema.describe(
    "Its sandbox; each key overrides the workspace's.",
  ).optional(),
  review: z
    .boolean()
    .describe(
      'Whether a reviewer approves its work before it lands or its pull request is opened; overrides `review.enabled`.',
    )
    .optional(),
  candidates: CandidateChoiceSchema.describe(
    'Several CLIs try it, and the gates and a judge pick the change that goes on; overrides `candidates`.',
  ).optional(),
  setup: z
    .array(GateSchema)
    .describe('Commands that make its new worktree ready; they replace `environment.setup`.')
    .optional(),
  maintenance: z
    .array(GateSchema)
    .describe(
      'Commands that make its kept worktree ready again; they replace `environment.maintenance`.',
    )
    .optional(),
};

/** Settings an item, a persona or the workspace may set for a session. */
export const SessionSettingsSchema = z.strictObject({
  cli: z.enum(CLI_NAMES).describe('The agent CLI that runs the session.').optional(),
  workDir: z
    .string()
    .min(1)
    .describe("The agent's working directory (relative to the workspace, or absolute).")
    .optional(),
  model: z.string().min(1).describe("The CLI's model (default: the CLI's own).").optional(),
  maxTurns: z.int().positive().describe('Turn limit of one session.').optional(),
  maxBudgetUsd: z
    .number()
    .positive()
    .describe('USD budget of one session, stopped from the cost its CLI reports.')
    .optional(),
  timeout: LimitSchema.describe('Wall-clock limit of one session.').optional(),
  idleTimeout: LimitSchema.describe(
    "Limit on a session's time without output: room for the CLI's own 300 s stall recovery and long tool runs.",
  ).optional(),
  tools: ToolListSchema.describe(
    "The tools the agent has at all (default: its CLI's; `[]`: none).",
  ).optional(),
  allowedTools: ToolListSchema.describe(
    "Tool rules the agent may use without asking, in claude's syntax (`Bash(git *)`, `Edit(./**)`); every CLI gets its own equivalent.",
  ).optional(),
  disallowedTools: ToolListSchema.describe('Tool rules the agent may never use.').optional(),
  permissionMode: z
    .enum(PERMISSION_MODES)
    .describe("Permission mode, in claude's names: `dontAsk` refuses what is not allowed.")
    .optional(),
  fallback: FallbackChoiceSchema.describe(
    'The CLIs a session goes on with when its own is held by a usage limit.',
  ).optional(),
  lean: z
    .boolean()
    .describe(
      'Trims what the CLI sends before the task (tools the session may not use, MCP servers it may not call, the per-machine parts of its system prompt); what the agent can do is kept.',
    )
    .optional(),
  ...GitChoiceShape,
});

export type SessionSettings = z.output<typeof SessionSettingsSchema>;

const session = SessionSettingsSchema.shape;

const DefaultsSchema = z.strictObject({
  // Git mode and gates have sections of their own in the configuration.
  ...SessionSettingsSchema.omit({
    git: true,
    base: true,
    gates: true,
    land: true,
    forge: true,
    sandbox: true,
    review: true,
    candidates: true,
    setup: true,
    maintenance: true,
  }).shape,
  maxTurns: session.maxTurns.unwrap().default(50),
  maxBudgetUsd: session.maxBudgetUsd.unwrap().default(5),
  timeout: session.timeout.unwrap().default(3600),
  // The CLI itself stays silent for 300 s on a stalled API stream, and while a Bash tool runs.
  idleTimeout: session.idleTimeout.unwrap().default(900),
  permissionMode: session.permissionMode.unwrap().default('dontAsk'),
  allowedTools: session.allowedTools.unwrap().default(DEFAULT_ALLOWED_TOOLS),
  disallowedTools: session.disallowedTools.unwrap().default([]),
  maxAttempts: z
    .int()
    .positive()
    .default(3)
    .describe('Attempts an item gets before it is failed (an item may set its own).'),
  agent: z
    .string()
    .min(1)
    .describe('The persona (`agents/AGENT_<id>.md`) of every item that names none.')
    .optional(),
  cli: session.cli.unwrap().default('claude'),
});

const EnvSchema = z.strictObject({
  allow: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not a variable name'))
    .default([])
    .describe('Extra variable names passed to the agent even though they look like secrets.'),
  deny: z
    .array(z.string().regex(/^[A-Za-z0-9_*]+$/, 'not a variable name or pattern'))
    .default([])
    .describe('Extra variable names or `*_SUFFIX` / `PREFIX_*` patterns withheld from the agent.'),
});

const PathsSchema = z.strictObject({
  bootstrap: z
    .string()
    .min(1)
    .default('prompts/bootstrap.md')
    .describe(
      "The template of each session's assignment (the item's own: its task, criteria, what went wrong before), rendered into its first message.",
    ),
  instructions: z
    .string()
    .min(1)
    .default('prompts/instructions.md')
    .describe(
      "The template of the standing instructions every session gets in its system prompt (how to work, when to ask a person). Item placeholders here make each item's system prompt differ, so the model API's prompt cache cannot serve it; `ralph doctor` says so. A workspace without the file has none.",
    ),
  agents: z.string().min(1).default('agents').describe('Where the personas are.'),
  state: z
    .string()
    .min(1)
    .default('state')
    .describe('The queue, the lock, the running records and the log.'),
  sessions: z
    .string()
    .min(1)
    .default('docs/sessions')
    .describe("Each session's archive: its stream, stderr, record, summary and prompt."),
  worktrees: z
    .string()
    .min(1)
    .default('worktrees')
    .describe("Where git mode's worktrees live (one per item being worked on)."),
});

const LogSchema = z.strictObject({
  maxBytes: z
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe('`state/iteration.log` is rotated past this size, keeping one old file.'),
});

/** `ralph.config.json`: every key optional, unknown keys rejected. */
export const ConfigSchema = z
  .strictObject({
    $schema: z
      .string()
      .describe('The JSON Schema this file follows (`ralph init` writes it), for editors.')
      .optional(),
    claude: OldClaudeSchema.optional().describe(
      'The old name of `clis.claude` and `initialPrompt`.',
    ),
    clis: ClisSchema.prefault({}).describe('How each agent CLI is started.'),
    initialPrompt: InitialPromptSchema.optional(),
    prices: z
      .record(z.string().min(1), PriceSchema)
      .default({})
      .describe(
        "Prices by model name (or by CLI name for the CLI's default model): a session whose CLI reports no cost is priced from its tokens, an estimate.",
      ),
    paths: PathsSchema.prefault({}).describe("Where the workspace's files are, relative to it."),
    defaults: DefaultsSchema.prefault({}).describe(
      "Session settings of every item, below a persona's and an item's own.",
    ),
    run: RunSchema.prefault({}).describe(
      'How the night runs: its pace, its limits and its guards.',
    ),
    env: EnvSchema.prefault({}).describe(
      "What of ralph's environment the agent is given: every variable but those that look like secrets.",
    ),
    log: LogSchema.prefault({}).describe("`state/iteration.log`, the runner's log."),
    git: GitSchema.prefault({}).describe(
      'Git mode: each item on a branch of its own, in a worktree of its own.',
    ),
    land: LandSchema.prefault({}).describe(
      "Landing: git mode's branches merged onto one target, re-checked after every merge.",
    ),
    forge: ForgeSchema.optional().describe('Pull requests with CI in the loop; none without it.'),
    import: ImportSchema.prefault({}).describe(
      '`ralph import`: how work taken from an issue tracker runs and is told back.',
    ),
    linear: LinearSchema.prefault({}).describe(
      'Linear, a source of work both ways: its issues imported (`ralph import linear:<TEAM>`), moved as their items are worked.',
    ),
    notify: z
      .array(NotifierSchema)
      .max(20)
      .default([])
      .describe('Where a person is told what matters as it happens.'),
    sandbox: SandboxSchema.prefault({}).describe('The sandbox every agent and its gates run in.'),
    environment: EnvironmentSchema.prefault({}).describe(
      "The environment of each item's worktree: files copied in, setup and maintenance commands run by the setup stage before a session.",
    ),
    review: ReviewSchema.prefault({}).describe(
      "Review: a reviewer of another CLI approves an item's work before it lands or its pull request opens, failing closed.",
    ),
    candidates: CandidatesSchema.prefault({}).describe(
      'Candidates: several CLIs try an item, each a full attempt; the gates and an anonymized judge pick the change that goes on, failing closed.',
    ),
    lessons: LessonsSchema.prefault({}).describe(
      "Lessons: a person's decisions (and the night's repeated failures) proposed as rules by a read-only session; a rule takes effect only once a person accepts it.",
    ),
    queue: QueueSchema.prefault({}).describe(
      'Where the queue is: `state/queue.json`, or a Postgres database a fleet shares.',
    ),
    gates: z
      .array(GateSchema)
      .default([])
      .describe(
        "Commands a successful session's work must pass before its item is done; an item's or persona's `gates` replace them.",
      ),
    rig: z
      .string()
      .default('')
      .describe('The `{{RIG}}` placeholder: a name for this workspace in prompts.'),
    vars: z
      .record(z.string().regex(VAR_NAME, 'not a placeholder name'), z.string())
      .default({})
      .describe("Workspace-wide template variables; an item's `vars` override them."),
    yolo: z
      .boolean()
      .default(false)
      .describe(
        'Run every session with `--dangerously-skip-permissions` (opt-in by name); announced at start and marked in every session record.',
      ),
  })
  .superRefine((config, ctx) => {
    const pr = config.forge?.pr;
    if (pr !== undefined && (pr === 'landed') !== config.land.enabled)
      ctx.addIssue({
        code: 'custom',
        path: ['forge', 'pr'],
        message:
          pr === 'landed'
            ? '"landed" opens the land target\'s pull request, and landing is off: set "land": { "enabled": true } or "pr": "item"'
            : 'landing is on, so the night\'s branches land on one target: set "pr": "landed" (its pull request), or turn landing off for a pull request per item',
      });
    const fallbacks = config.defaults.fallback?.clis ?? [];
    fallbacks.forEach((choice, index) => {
      if (cliOfFallback(choice) === config.defaults.cli)
        ctx.addIssue({
          code: 'custom',
          path: ['defaults', 'fallback', 'clis', index],
          message: `"${config.defaults.cli}" is the workspace's own CLI (defaults.cli): a fallback is another CLI`,
        });
    });
    if (config.defaults.permissionMode === 'bypassPermissions' && !config.yolo) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaults', 'permissionMode'],
        message: '"bypassPermissions" skips every permission check; it needs "yolo": true',
      });
    }
    const old = config.claude ?? {};
    const twice = [
      ['command', old.command !== undefined && config.clis.claude.command !== undefined],
      ['settings', old.settings !== undefined && config.clis.claude.settings !== undefined],
    ] as const;
    for (const [key, both] of twice)
      if (both)
        ctx.addIssue({
          code: 'custom',
          path: ['claude', key],
          message: `the old name of "clis.claude.${key}", which is given too: keep one`,
        });
    if (old.initialPrompt !== undefined && config.initialPrompt !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['claude', 'initialPrompt'],
        message: 'the old name of "initialPrompt", which is given too: keep one',
      });
  })
  .transform(resolveClaude);

/** The settings with the old `claude` section moved to where they are now. */
function resolveClaude<T extends ConfigInput>(config: T) {
  const { claude: old = {}, ...rest } = config;
  return {
    ...rest,
    initialPrompt: config.initialPrompt ?? old.initialPrompt ?? DEFAULT_INITIAL_PROMPT,
    clis: {
      ...config.clis,
      claude: {
        command: config.clis.claude.command ?? old.command ?? ['claude'],
        settings: config.clis.claude.settings ?? old.settings,
      },
    },
  };
}

interface ConfigInput {
  claude?: { command?: string[]; initialPrompt?: string; settings?: string };
  initialPrompt?: string;
  clis: { claude: { command?: string[]; settings?: string } };
}

export type Config = z.output<typeof ConfigSchema>;
