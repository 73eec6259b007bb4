import * as z from '../lib/zod.js';
import { CLI_NAMES, type CliName } from '../config/cli-names.js';
import { DurationSchema } from '../config/values.js';

/** A CLI to fall back on: its name, or its name and the model to ask it for. */
export const FallbackCliSchema = z.union([
  z.enum(CLI_NAMES),
  z.strictObject({
    cli: z.enum(CLI_NAMES).describe('The CLI.'),
    model: z.string().min(1).describe('The model to ask it for.').optional(),
  }),
]);

/**
 * The CLIs a session falls back on when its own is held by a usage limit that resets later
 * than `after`, by an exhausted credit, or has no credentials; each key overrides the
 * workspace's (`defaults.fallback`).
 */
export const FallbackChoiceSchema = z.strictObject({
  clis: z
    .array(FallbackCliSchema)
    .max(4)
    .optional()
    .describe("In order of preference; never the item's own CLI."),
  after: DurationSchema.optional().describe(
    'A limit that resets within this is waited for instead (a five-hour window, say); default 15 minutes.',
  ),
  handoverChars: z
    .int()
    .min(500)
    .max(200_000)
    .optional()
    .describe("Characters of the handover the fallback's first prompt holds; default 12,000."),
});

export type FallbackChoice = z.output<typeof FallbackChoiceSchema>;

/** The CLI a fallback entry names. */
export function cliOfFallback(choice: z.output<typeof FallbackCliSchema>): CliName {
  return typeof choice === 'string' ? choice : choice.cli;
}

const argvError = (name: string) =>
  `expected an argv array such as ["${name}"] or ["node", "/path/to/cli.js"] (a string is never split into words: ralph runs no shell)`;

/** The executable of a CLI and any leading arguments, as an argv array (never a shell string). */
const CommandSchema = (name: string) =>
  z
    .array(z.string().min(1), { error: argvError(name) })
    .min(1)
    .describe(
      `The ${name} executable and any leading arguments, as an argv array (a string is refused: ralph runs no shell).`,
    );

/**
 * The short message every CLI but codex is started with. The item travels in ralph's prompt:
 * after this message in claude's first message (its system prompt gets the part without the
 * item's), appended to pi's system prompt, beside this message on the others' stdin.
 */
export const DEFAULT_INITIAL_PROMPT =
  'You are running unattended under ralph. Your work item and its instructions are under "# Assignment". Begin now and finish the item.';
export const InitialPromptSchema = z
  .string()
  .min(1)
  .describe(
    "The short message a session starts with (codex gets none); the item itself is in ralph's prompt (for claude, after this message).",
  );
const ClaudeSettingsSchema = z.string().min(1).describe('Passed to claude as `--settings`.');

/**
 * The section of older releases, read as an alias: its `command` and `settings` are claude's
 * (`clis.claude`), its `initialPrompt` every CLI's (`initialPrompt`).
 */
export const OldClaudeSchema = z.strictObject({
  command: CommandSchema('claude').optional(),
  initialPrompt: InitialPromptSchema.optional(),
  settings: ClaudeSettingsSchema.optional(),
});

/** How another agent CLI is started: its executable and any leading arguments. */
const CliSchema = (name: string) =>
  z
    .strictObject({ command: CommandSchema(name).default([name]) })
    .prefault({})
    .describe(`How ${name} is started.`);

/** How each agent CLI is started. */
export const ClisSchema = z.strictObject({
  claude: z
    .strictObject({
      command: CommandSchema('claude').optional(),
      settings: ClaudeSettingsSchema.optional(),
    })
    // Without defaults: the old `claude` section may give them instead (see `resolveClaude`).
    .prefault({})
    .describe('How claude is started.'),
  codex: CliSchema('codex'),
  gemini: CliSchema('gemini'),
  opencode: CliSchema('opencode'),
  pi: CliSchema('pi'),
});

/**
 * A model's price in USD per million tokens: a session's cost is estimated from its tokens when
 * its CLI reports no cost of its own.
 */
export const PriceSchema = z.strictObject({
  input: z.number().nonnegative().describe('USD per million input tokens.'),
  output: z.number().nonnegative().describe('USD per million output tokens.'),
  cachedInput: z
    .number()
    .nonnegative()
    .optional()
    .describe("Input tokens read from the provider's cache; priced as input when not given."),
});

export type Price = z.output<typeof PriceSchema>;
