import { DEFAULT_ALLOWED_TOOLS } from './default-tools.js';
import * as z from '../lib/zod.js';
import { cronProblem } from '../lib/cron.js';
import { parseDuration } from '../lib/duration.js';
import { CLI_NAMES, type CliName } from './cli-names.js';
import { PERMISSION_MODES } from './permission-modes.js';
import { SANDBOX_KINDS, SANDBOX_NETWORKS } from './sandbox-kinds.js';
import { NOTIFY_EVENTS } from './notify-events.js';

/** A duration as written by people (`90s`, `15m`, `2h`, seconds), read as seconds. */
export const DurationSchema = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const seconds = parseDuration(value);
  if (seconds === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `expected a duration such as "90s", "15m", "2h" or a number of seconds, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return seconds;
});

/** A session limit: 0 would stop every session at once, so it is refused. */
const LimitSchema = DurationSchema.refine((seconds) => seconds > 0, {
  message: 'must be more than 0: every session needs a limit (give a long one, such as "24h")',
});

/** Whether the runtime knows an IANA time zone name. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A 5-field cron expression, checked (an empty one is refused: cron-parser reads it as "always"). */
export const CronSchema = z.string().superRefine((expression, ctx) => {
  const problem = cronProblem(expression);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** A tool rule list: claude's `Bash(git *)`, `Read`, …; never empty strings. */
export const ToolListSchema = z.array(z.string().trim().min(1, 'a tool rule cannot be empty'));

/**
 * A quality gate: a command run in the item's work dir after a successful session. An argv
 * array (ralph runs no shell: a user who wants one writes `["sh", "-c", "…"]`), or an object
 * with a name and a timeout.
 */
export const GateSchema = z
  .union(
    [
      z.array(z.string().min(1)).min(1),
      z.strictObject({
        name: z.string().min(1).optional(),
        command: z.array(z.string().min(1)).min(1),
        timeout: LimitSchema.optional(),
      }),
    ],
    {
      error:
        'a gate is a command (a non-empty array of strings) or { "name"?, "command", "timeout"? }',
    },
  )
  .transform((gate) => {
    const { name, command, timeout } = Array.isArray(gate) ? { command: gate } : gate;
    return { name: name ?? command.join(' '), command, timeout: timeout ?? 600 };
  });

export type Gate = z.output<typeof GateSchema>;

/** How a landing merges an item's branch onto the target. */
export const LAND_METHODS = ['merge', 'rebase', 'squash'] as const;

/** A branch name git takes (`git check-ref-format --branch`), in the safe part of its syntax. */
const BranchName = z
  .string()
  .regex(
    /^(?![-/.])(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock$|\.$|\/$))[A-Za-z0-9._/-]{1,200}$/,
    'a branch name: ASCII letters, digits, ".", "_", "-" and "/" (no "..", no leading "-" or "/", no trailing "/", "." or ".lock")',
  );

/**
 * A remote of the repository, by its name: credentials stay in git's own configuration, never
 * in ralph's files or log.
 */
const RemoteName = z
  .string()
  .regex(
    /^(?![-.])[A-Za-z0-9._-]{1,100}$/,
    'the name of a git remote (such as "origin"), not a URL',
  );

/** Landing as an item or a persona may set it: each key overrides the workspace's. */
export const LandChoiceSchema = z.strictObject({
  /** Land the item's branch once its gates pass (`ralph add --land`, `--no-land`). */
  enabled: z.boolean().optional(),
  /** The branch the night's work lands on. */
  target: BranchName.optional(),
  method: z.enum(LAND_METHODS).optional(),
  /** Run on the merged tree before the target moves (default: the item's gates). */
  gates: z.array(GateSchema).optional(),
  /** Landings that fail (a conflict, a land gate) before the item is failed. */
  maxRounds: z.int().positive().max(20).optional(),
  /** A remote the target is pushed to after each landing (never by force). */
  push: RemoteName.optional(),
});

export type LandChoice = z.output<typeof LandChoiceSchema>;

/** A host the sandbox's proxy lets through: `registry.npmjs.org`, `*.github.com`, `127.0.0.1:8080`. */
const AllowedHost = z
  .string()
  .regex(
    /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]{0,252})(:[0-9]{1,5})?$/,
    'a host name or address, optionally "*." before it and ":port" after (no scheme, no path)',
  );

/** An absolute path given into the sandbox (`~/` is the user's home). */
const SandboxPath = z
  .string()
  .regex(/^(\/|~\/)/, 'an absolute path, or one under the home directory written "~/…"');

/** The sandbox as an item or a persona may set it: each key overrides the workspace's. */
export const SandboxChoiceSchema = z.strictObject({
  kind: z.enum(SANDBOX_KINDS).optional(),
  network: z.enum(SANDBOX_NETWORKS).optional(),
  /** Hosts the proxy lets through besides the CLI's own API (`network: "allow"`). */
  allowHosts: z.array(AllowedHost).optional(),
  /** Paths outside the work dir the agent may read. */
  readOnly: z.array(SandboxPath).optional(),
  /** Paths outside the work dir the agent may change. */
  readWrite: z.array(SandboxPath).optional(),
});

export type SandboxChoice = z.output<typeof SandboxChoiceSchema>;

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

/** A CLI to fall back on: its name, or its name and the model to ask it for. */
const FallbackCliSchema = z.union([
  z.enum(CLI_NAMES),
  z.strictObject({ cli: z.enum(CLI_NAMES), model: z.string().min(1).optional() }),
]);

/**
 * The CLIs a session falls back on when its own is held by a usage limit that resets later
 * than `after`, by an exhausted credit, or has no credentials; each key overrides the
 * workspace's (`defaults.fallback`).
 */
export const FallbackChoiceSchema = z.strictObject({
  /** In order of preference; never the item's own CLI. */
  clis: z.array(FallbackCliSchema).max(4).optional(),
  /** A limit that resets within this is waited for instead (a five-hour window, say). */
  after: DurationSchema.optional(),
  /** Characters of the handover the fallback's first prompt holds. */
  handoverChars: z.int().min(500).max(200_000).optional(),
});

export type FallbackChoice = z.output<typeof FallbackChoiceSchema>;

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

const argvError = (name: string) =>
  `expected an argv array such as ["${name}"] or ["node", "/path/to/cli.js"] (a string is never split into words: ralph runs no shell)`;

/** The executable of a CLI and any leading arguments, as an argv array (never a shell string). */
const CommandSchema = (name: string) =>
  z.array(z.string().min(1), { error: argvError(name) }).min(1);

/**
 * The short message every CLI but codex is started with. The item travels in ralph's prompt:
 * appended to the system prompt of claude and pi, beside this message on the others' stdin.
 */
const DEFAULT_INITIAL_PROMPT =
  'You are running unattended under ralph. Your work item and instructions are under "# Assignment" in ralph\'s prompt. Begin now and finish the item.';
const InitialPromptSchema = z.string().min(1);
/** Passed to claude as `--settings`. */
const ClaudeSettingsSchema = z.string().min(1);

/**
 * The section of older releases, read as an alias: its `command` and `settings` are claude's
 * (`clis.claude`), its `initialPrompt` every CLI's (`initialPrompt`).
 */
const OldClaudeSchema = z.strictObject({
  command: CommandSchema('claude').optional(),
  initialPrompt: InitialPromptSchema.optional(),
  settings: ClaudeSettingsSchema.optional(),
});

/** How another agent CLI is started: its executable and any leading arguments. */
const CliSchema = (name: string) =>
  z.strictObject({ command: CommandSchema(name).default([name]) });

/** How each agent CLI is started. */
const ClisSchema = z.strictObject({
  /** Without defaults: the old `claude` section may give them instead (see `resolveClaude`). */
  claude: z
    .strictObject({
      command: CommandSchema('claude').optional(),
      settings: ClaudeSettingsSchema.optional(),
    })
    .prefault({}),
  codex: CliSchema('codex').prefault({}),
  gemini: CliSchema('gemini').prefault({}),
  opencode: CliSchema('opencode').prefault({}),
  pi: CliSchema('pi').prefault({}),
});

/**
 * A model's price in USD per million tokens: a session's cost is estimated from its tokens when
 * its CLI reports no cost of its own.
 */
const PriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Input tokens read from the provider's cache; priced as input when not given. */
  cachedInput: z.number().nonnegative().optional(),
});

export type Price = z.output<typeof PriceSchema>;

const RunSchema = z.strictObject({
  /** Pause between two items. */
  delay: DurationSchema.default(0),
  /** How often an idle runner looks for new items besides watching the queue file. */
  pollInterval: DurationSchema.default(5),
  /** Grace between SIGINT, SIGTERM and SIGKILL when an agent is stopped. */
  killGrace: DurationSchema.default(5),
  /** How long an agent may run on after its `result` line (the CLI sometimes does). */
  afterResultGrace: DurationSchema.default(10),
  /** Consecutive failures that pause the night (the circuit breaker); 0 turns it off. */
  maxConsecutiveFailures: z.int().nonnegative().default(5),
  /** Cap of the wait before a failed item's next attempt (1, 2, 4, … minutes up to this). */
  retryBackoffCap: DurationSchema.default(1800),
  /** Cap of the backoff between consecutive failures (2 s, 4 s, 8 s, … up to this). */
  failureBackoffCap: DurationSchema.default(300),
  /**
   * How long a rate limit that names no reset time holds the night (the other CLIs report a 429
   * without one); it doubles with each one in a row, up to `maxLimitWait`.
   */
  rateLimitBackoff: DurationSchema.default(60),
  /** Margin added to a usage limit's reset time before the next try. */
  limitMargin: DurationSchema.default(30),
  /** Longest a `--drain` run waits for a usage limit to reset; past it the run ends (exit 7). */
  maxLimitWait: DurationSchema.default(6 * 3600),
  /** Cron expressions naming the minutes when new items may start; empty means always. */
  windows: z.array(CronSchema).default([]),
  /** Time zone of `windows` and of `--until` (IANA name); default: the machine's. */
  timeZone: z
    .string()
    .refine(isTimeZone, {
      message: 'not a time zone this machine knows (an IANA name such as "Europe/Berlin")',
    })
    .optional(),
  /** Bytes of output (stdout and stderr) past which an agent is stopped. */
  maxOutputBytes: z
    .int()
    .positive()
    .default(2 * 1024 ** 3),
  /**
   * Free bytes the state and archive file systems must keep: below this no item starts, a
   * running agent is stopped and the night pauses, so state changes always have room. 0: off.
   */
  minFreeBytes: z
    .int()
    .nonnegative()
    .default(100 * 1024 ** 2),
  /**
   * Longest a state or archive operation of the loop may take; past it the runner is wedged
   * (a hung mount, say) and exits 70 rather than hang all night. 0: off.
   */
  watchdog: DurationSchema.default(600),
  /** Limit on what one run may spend, in USD (`--max-cost` overrides it). */
  maxCostUsd: z.number().positive().optional(),
  /** Items run at once (`--workers`); without git mode only items with different work dirs. */
  workers: z.int().min(1).max(16).default(1),
  /**
   * The share of a subscription's usage window the night leaves unspent for the person's
   * morning: once a CLI reports its window used past `1 - reserve`, no item starts on it until
   * the window resets. 0: off.
   */
  reserve: z.number().min(0).max(0.9).default(0),
});

/** Where the queue is: `state/queue.json`, or a Postgres database a fleet of runners shares. */
const QueueSchema = z
  .strictObject({
    backend: z.enum(['file', 'postgres']).default('file'),
    /**
     * The database's URL (`postgres://…`); a secret: `RALPH_DATABASE_URL` is the better place,
     * and wins over this.
     */
    url: z.string().min(1).optional(),
    /** The queue's name in the database: one database may hold several queues. */
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
        'ASCII letters (a-z, A-Z), digits, ".", "_" or "-"',
      )
      .default('default'),
    /** TLS to the database: files of the CA, and of a client certificate and its key. */
    tls: z
      .strictObject({
        ca: z.string().min(1).optional(),
        cert: z.string().min(1).optional(),
        key: z.string().min(1).optional(),
        /** Off only for a test database with a self-signed certificate. */
        rejectUnauthorized: z.boolean().default(true),
      })
      .optional(),
    /** How long a running item's lease lasts unless its runner renews it. */
    lease: DurationSchema.default(60),
    /** What the whole fleet may spend in a day (UTC), in USD; past it no runner claims. */
    maxDailyCostUsd: z.number().positive().optional(),
  })
  .superRefine((queue, ctx) => {
    if (
      queue.backend === 'file' &&
      (queue.url !== undefined || queue.tls !== undefined || queue.maxDailyCostUsd !== undefined)
    )
      ctx.addIssue({
        code: 'custom',
        path: ['backend'],
        message: '"url", "tls" and "maxDailyCostUsd" are for "backend": "postgres"',
      });
  });

/** Git mode: each item on a branch of its own, in a worktree of its own. */
const GitSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** The ref a new branch starts from; default: the repository's HEAD when the item is claimed. */
  base: z.string().min(1).optional(),
  /** A remote to push the branch to once the gates pass; nothing is pushed without it. */
  push: z.string().min(1).optional(),
});

/** The workspace's sandbox: what an item or persona does not set itself. */
const SandboxSchema = z.strictObject({
  kind: z.enum(SANDBOX_KINDS).default('none'),
  network: z.enum(SANDBOX_NETWORKS).default('allow'),
  allowHosts: z.array(AllowedHost).default([]),
  readOnly: z.array(SandboxPath).default([]),
  readWrite: z.array(SandboxPath).default([]),
});

/** Landing: git mode's branches merged onto one target, re-checked after every merge. */
const LandSchema = z.strictObject({
  enabled: z.boolean().default(false),
  target: BranchName.default('ralph/landed'),
  method: z.enum(LAND_METHODS).default('merge'),
  gates: z.array(GateSchema).optional(),
  maxRounds: z.int().positive().max(20).default(2),
  push: RemoteName.optional(),
});

/** How a pull request is merged once its checks are green (`none`: left for a person). */
export const FORGE_MERGES = ['none', 'merge', 'squash', 'rebase'] as const;

/**
 * Pull requests with CI in the loop: an item's branch pushed and a pull request opened once its
 * gates (or its landing) pass, its checks awaited, a failure handed back to its agent.
 */
const ForgeSchema = z.strictObject({
  kind: z.literal('github', { error: 'the forge ralph speaks to: "github"' }),
  /** GitHub's API, or a GitHub Enterprise server's (`https://ghe.example/api/v3`). */
  apiUrl: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL such as "https://api.github.com"' })
    .default('https://api.github.com'),
  /** `owner/name`; default: read from the remote's URL. */
  repo: z
    .string()
    .regex(/^[\w.-]+\/[\w.-]+$/, 'the repository as "owner/name"')
    .optional(),
  /** The remote branches are pushed to, with the person's git credentials. */
  remote: RemoteName.default('origin'),
  /** The variable holding the API token (never the token itself). */
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, not a token')
    .default('GITHUB_TOKEN'),
  /**
   * `item`: a pull request for each item's branch into its base; `landed`: one for the land
   * target (items that land), into `forge.base`. Default: `landed` with landing on, else `item`.
   */
  pr: z.enum(['item', 'landed']).optional(),
  /** The branch the land target's pull request goes into (`pr: "landed"`). */
  base: BranchName.default('main'),
  draft: z.boolean().default(false),
  labels: z.array(z.string().min(1).max(50)).default([]),
  reviewers: z.array(z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login')).default([]),
  merge: z.enum(FORGE_MERGES).default('none'),
  /** Merge (or call it ready) only once a reviewer approved it. */
  requireApproval: z.boolean().default(false),
  checks: z
    .strictObject({
      /** Longest an item waits for its checks after a push. */
      timeout: DurationSchema.default(2 * 3600),
      /** Rounds of a failed check handed back to the agent before the item fails. */
      maxFixRounds: z.int().nonnegative().max(10).default(2),
      /** The checks that count (by name); empty: every check reported. */
      required: z.array(z.string().min(1)).default([]),
      /** The first wait between two looks at a commit's checks; it grows to 10 times it. */
      poll: DurationSchema.default(30),
    })
    .prefault({}),
  /** Pull requests of this workspace open and not merged, past which no new item starts. */
  maxOpen: z.int().positive().optional(),
  /** A review that requests changes goes back to the agent like a failed check. */
  reviews: z.boolean().default(false),
  /** The least time between two writes to the forge (GitHub asks for one second; thrice that for a new pull request or comment). */
  writeInterval: DurationSchema.default(1),
});

export type ForgeConfig = z.output<typeof ForgeSchema>;

const EnvName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, not its value');

/** `ralph import`: how work taken from an issue tracker runs and is told back. */
const ImportSchema = z.strictObject({
  /**
   * The persona imported issues run under (its allowlist): their text is anyone's. Default: the
   * workspace's allowlist; never a mode that bypasses permissions.
   */
  persona: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
      'an agent id is ASCII letters (a-z, A-Z), digits, "_" or "-"',
    )
    .optional(),
  /** A comment on the issue when its item ends, and `Fixes #N` in its pull request. */
  writeBack: z.boolean().default(false),
  /**
   * Whose issues are work: anyone can get a label onto an issue (issue forms apply labels), so
   * who wrote it decides. Trusted authors' text is the task; others' is skipped, or imported
   * fenced as untrusted text (`others: "fence"`).
   */
  trust: z
    .strictObject({
      /** GitHub's author associations trusted. */
      associations: z
        .array(
          z.enum([
            'OWNER',
            'MEMBER',
            'COLLABORATOR',
            'CONTRIBUTOR',
            'FIRST_TIME_CONTRIBUTOR',
            'FIRST_TIMER',
            'NONE',
            'MANNEQUIN',
          ]),
        )
        .default(['OWNER', 'MEMBER', 'COLLABORATOR']),
      /** Logins trusted whatever their association. */
      logins: z.array(z.string().min(1)).default([]),
      /** What becomes of an issue by anyone else. */
      others: z.enum(['skip', 'fence']).default('skip'),
    })
    .prefault({}),
});

export type ImportConfig = z.output<typeof ImportSchema>;

const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http(s) URL' });

/** Which events a notifier is sent (default: every one). */
const NotifierEvents = z.array(z.enum(NOTIFY_EVENTS)).min(1).optional();

/** A notifier reached over HTTP: its URL given, or named by a variable (a Slack URL is a secret). */
const HttpNotifier = <K extends string>(kind: K) =>
  z.strictObject({
    kind: z.literal(kind),
    url: HttpUrl.optional(),
    urlEnv: EnvName.optional(),
    events: NotifierEvents,
  });

const NotifierSchema = z
  .discriminatedUnion('kind', [
    HttpNotifier('webhook').extend({
      /** Signs each body: `X-Ralph-Signature: sha256=<HMAC of the body>` with this variable's value. */
      secretEnv: EnvName.optional(),
    }),
    HttpNotifier('slack'),
    HttpNotifier('ntfy').extend({
      /** An access token for the topic (`Authorization: Bearer`), by its variable. */
      tokenEnv: EnvName.optional(),
      priority: z.int().min(1).max(5).optional(),
    }),
    z.strictObject({
      kind: z.literal('command'),
      /** argv, run without a shell; the notification as JSON on its standard input. */
      command: z.array(z.string().min(1)).min(1, 'give the program and its arguments'),
      events: NotifierEvents,
    }),
  ])
  .superRefine((notifier, ctx) => {
    if (notifier.kind === 'command') return;
    if ((notifier.url === undefined) === (notifier.urlEnv === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'give "url", or "urlEnv" (the variable holding it), one of the two',
      });
  });

export type NotifierConfig = z.output<typeof NotifierSchema>;

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

/** The CLI a fallback entry names. */
export function cliOfFallback(choice: z.output<typeof FallbackCliSchema>): CliName {
  return typeof choice === 'string' ? choice : choice.cli;
}

/** Names usable as template placeholders. */
export const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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
