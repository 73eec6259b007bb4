import type { parse as parseYaml } from 'yaml';
import * as z from '../lib/zod.js';
import { CLI_NAMES } from '../config/cli-names.js';
import { PERMISSION_MODES } from '../config/permission-modes.js';
import type { SessionSettings } from '../config/schema.js';
import { cliOfFallback, FallbackChoiceSchema } from '../agent/config-schema.js';
import { GateSchema } from '../gates/config-schema.js';
import { LandChoiceSchema } from '../land/config-schema.js';
import { InputError } from '../lib/errors.js';
import { lazyRequire } from '../lib/lazy-require.js';
import type { FileCache } from '../lib/file-cache.js';
import { formatIssues } from '../lib/validation.js';
import { personaFile } from './file.js';

/** A tool list as persona files write it: `"Read,Grep"` or `["Read", "Grep"]`. */
const ToolList = z.union([z.string(), z.array(z.string().trim().min(1))]).transform((value) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : value,
);

/** The YAML parser, loaded at the first frontmatter: a night without personas never needs it. */
const yamlParser = lazyRequire<{ parse: typeof parseYaml }>('yaml');

/** The frontmatter of `agents/AGENT_<id>.md`: the persona's tool scopes and limits. */
export const FrontmatterSchema = z.strictObject({
  /** The agent CLI that runs the persona's items. */
  cli: z.enum(CLI_NAMES).optional(),
  /** Tool availability: `--tools`. */
  tools: ToolList.optional(),
  /** Hard denies: `--disallowedTools`. */
  disallowed_tools: ToolList.optional(),
  /** Tools that run without asking: `--allowedTools`. */
  auto_approve_tools: ToolList.optional(),
  max_turns: z.int().positive().optional(),
  model: z.string().min(1).optional(),
  permission_mode: z.enum(PERMISSION_MODES).optional(),
  /** Git mode on or off for this persona's items, and the ref their branches start from. */
  git: z.boolean().optional(),
  base: z.string().min(1).optional(),
  /** Quality gates of this persona's items. */
  gates: z.array(GateSchema).optional(),
  /** Landing of this persona's items (each key overrides the workspace's `land`). */
  land: LandChoiceSchema.optional(),
  /** `false`: no pull request for this persona's items though the workspace sets `forge`. */
  forge: z.literal(false).optional(),
  /** The CLIs this persona's items fall back on when theirs is held by a usage limit. */
  fallback: FallbackChoiceSchema.optional(),
  /** Trim what the CLI sends before the task (see `lean` in docs/performance.md). */
  lean: z.boolean().optional(),
});

/** A persona: its settings for the session and its instructions. */
export interface Persona {
  id: string;
  file: string;
  settings: SessionSettings;
  instructions: string;
}

/** Splits `---\nyaml\n---\nbody` into its parts; no frontmatter means all body. */
function splitFrontmatter(text: string): { yaml?: string; body: string; unclosed?: boolean } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) {
    // An opening line with no closing one: the whole file would silently become instructions.
    if (/^---[ \t]*\r?\n/.test(text)) return { body: text, unclosed: true };
    return { body: text };
  }
  return { yaml: match[1] ?? '', body: text.slice(match[0].length) };
}

/** Parses a persona file; errors name the file and the key. */
export function parsePersona(id: string, file: string, text: string): Persona {
  const { yaml: frontmatter, body, unclosed } = splitFrontmatter(text);
  if (unclosed === true)
    throw new InputError(
      `${file}: the frontmatter opened by "---" on line 1 is never closed (add a "---" line after it)`,
    );
  let raw: unknown = {};
  if (frontmatter !== undefined) {
    try {
      raw = yamlParser().parse(frontmatter) ?? {};
    } catch (error) {
      throw new InputError(
        `${file}: the frontmatter is not valid YAML: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const parsed = FrontmatterSchema.safeParse(raw);
  if (!parsed.success) throw new InputError(formatIssues(`${file} (frontmatter)`, parsed.error));
  const f = parsed.data;
  const own = f.fallback?.clis?.findIndex((choice) => cliOfFallback(choice) === f.cli) ?? -1;
  if (f.cli !== undefined && own >= 0)
    throw new InputError(
      `${file} (frontmatter): fallback.clis.${own}: "${f.cli}" is the persona's own CLI (cli): a fallback is another CLI`,
    );
  const settings: SessionSettings = {
    cli: f.cli,
    tools: f.tools,
    disallowedTools: f.disallowed_tools,
    allowedTools: f.auto_approve_tools,
    maxTurns: f.max_turns,
    model: f.model,
    permissionMode: f.permission_mode,
    git: f.git,
    base: f.base,
    gates: f.gates,
    land: f.land,
    forge: f.forge,
    fallback: f.fallback,
    lean: f.lean,
  };
  return { id, file, settings, instructions: body.trim() };
}

/** Loads a persona through the cache; a missing file is a clear error. */
export async function loadPersona(
  agentsDir: string,
  id: string,
  cache: FileCache,
): Promise<Persona> {
  const file = personaFile(agentsDir, id);
  const text = await cache.read(file);
  if (text === undefined)
    throw new InputError(`persona ${JSON.stringify(id)} not found: ${file} does not exist`);
  return parsePersona(id, file, text);
}
