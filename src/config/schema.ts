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
import { ForgeSchema } from '../forge/config-schema.js';
import { GateSchema } from '../gates/config-schema.js';
import { GitSchema } from '../git/config-schema.js';
import { LandChoiceSchema, LandSchema } from '../land/config-schema.js';
import { NotifierSchema } from '../notify/config-schema.js';
import { QueueSchema } from '../queue/config-schema.js';
import { SandboxChoiceSchema, SandboxSchema } from '../sandbox/config-schema.js';
import { ImportSchema } from '../sources/config-schema.js';

// `ralph.config.json`, composed of the settings each room owns (its `config-schema.ts`).

/** Git mode as an item or a persona may set it: on or off, and the ref its branch starts from. */
const GitChoiceShape = {
  git: z.boolean().optional(),
  base: z.string().min(1).optional(),
  gates: z.array(GateSchema).optional(),
  land: LandChoiceSchema.optional(),
  /** `false`: no pull request for the item even though the workspace sets `forge`. */
  forge: z.boolean().optional(),
  sandbox: SandboxChoiceSchema.optional(),
};

/** Settings an item, a persona or the workspace may set for a session. */
export const SessionSettingsSchema = z.strictObject({
  /** The agent CLI that runs the session. */
  cli: z.enum(CLI_NAMES).optional(),
  workDir: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  maxTurns: z.int().positive().optional(),
  maxBudgetUsd: z.number().positive().optional(),
  timeout: LimitSchema.optional(),
  idleTimeout: LimitSchema.optional(),
  tools: ToolListSchema.optional(),
  allowedTools: ToolListSchema.optional(),
  disallowedTools: ToolListSchema.optional(),
  permissionMode: z.enum(PERMISSION_MODES).optional(),
  fallback: FallbackChoiceSchema.optional(),
  /**
   * Trims what the CLI sends before the task (tools the session may not use, MCP servers it
   * may not call, the per-machine parts of its system prompt); what the agent can do is kept.
   */
  lean: z.boolean().optional(),
  ...GitChoiceShape,
});

export type SessionSettings = z.output<typeof SessionSettingsSchema>;

const DefaultsSchema = z.strictObject({
  // Git mode and gates have sections of their own in the configuration.
  ...SessionSettingsSchema.omit({
    git: true,
    base: true,
    gates: true,
    land: true,
    forge: true,
    sandbox: true,
  }).shape,
  maxTurns: z.int().positive().default(50),
  maxBudgetUsd: z.number().positive().default(5),
  timeout: LimitSchema.default(3600),
  // The CLI itself stays silent for 300 s on a stalled API stream, and while a Bash tool runs.
  idleTimeout: LimitSchema.default(900),
  permissionMode: z.enum(PERMISSION_MODES).default('dontAsk'),
  allowedTools: ToolListSchema.default(DEFAULT_ALLOWED_TOOLS),
  disallowedTools: ToolListSchema.default([]),
  maxAttempts: z.int().positive().default(3),
  agent: z.string().min(1).optional(),
  cli: z.enum(CLI_NAMES).default('claude'),
});

const EnvSchema = z.strictObject({
  /** Extra variable names passed to the agent even though they look like secrets. */
  allow: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not a variable name')).default([]),
  /** Extra variable names or `*_SUFFIX` / `PREFIX_*` patterns withheld from the agent. */
  deny: z.array(z.string().regex(/^[A-Za-z0-9_*]+$/, 'not a variable name or pattern')).default([]),
});

const PathsSchema = z.strictObject({
  bootstrap: z.string().min(1).default('prompts/bootstrap.md'),
  agents: z.string().min(1).default('agents'),
  state: z.string().min(1).default('state'),
  sessions: z.string().min(1).default('docs/sessions'),
  /** Where git mode's worktrees live (one per item being worked on). */
  worktrees: z.string().min(1).default('worktrees'),
});

const LogSchema = z.strictObject({
  /** `state/iteration.log` is rotated past this size, keeping one old file. */
  maxBytes: z
    .int()
    .positive()
    .default(10 * 1024 * 1024),
});

/** `ralph.config.json`: every key optional, unknown keys rejected. */
export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    /** The old name of `clis.claude` and `initialPrompt`. */
    claude: OldClaudeSchema.optional(),
    clis: ClisSchema.prefault({}),
    initialPrompt: InitialPromptSchema.optional(),
    /** Prices by model name (or by CLI name for the CLI's default model). */
    prices: z.record(z.string().min(1), PriceSchema).default({}),
    paths: PathsSchema.prefault({}),
    defaults: DefaultsSchema.prefault({}),
    run: RunSchema.prefault({}),
    env: EnvSchema.prefault({}),
    log: LogSchema.prefault({}),
    git: GitSchema.prefault({}),
    land: LandSchema.prefault({}),
    forge: ForgeSchema.optional(),
    import: ImportSchema.prefault({}),
    /** Where a person is told what matters as it happens. */
    notify: z.array(NotifierSchema).max(20).default([]),
    sandbox: SandboxSchema.prefault({}),
    queue: QueueSchema.prefault({}),
    /** Commands a successful session's work must pass before its item is done. */
    gates: z.array(GateSchema).default([]),
    /** The `{{RIG}}` placeholder: a name for this workspace in prompts. */
    rig: z.string().default(''),
    /** Workspace-wide template variables; an item's `vars` override them. */
    vars: z.record(z.string().regex(VAR_NAME, 'not a placeholder name'), z.string()).default({}),
    /** Opt-in by name to `--dangerously-skip-permissions`. */
    yolo: z.boolean().default(false),
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
